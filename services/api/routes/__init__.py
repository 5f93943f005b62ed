"""The API's routes, one module per resource (Litestar controllers), and the helpers they share."""
