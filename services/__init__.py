"""Platform services: pure tournament logic, ratings and the code that drives them."""
