"""Storage: the PostgreSQL schema (versioned migrations), the connection pool, repositories."""
