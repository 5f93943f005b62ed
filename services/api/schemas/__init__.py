"""The API's request and response bodies (msgspec Structs), one module per resource."""
