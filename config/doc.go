// Package config owns Ada's settings: one table (settings.go) drives parsing
// from an injected getenv, validation, the redacted dump for /v1/healthz and
// /v1/info, and the generated .env.example. It reads no files and no global
// state, and must not import any other Ada package.
package config
