package chroma

// Option changes how Open talks to the server.
type Option func(*client)

// WithToken sends token (CHROMA_TOKEN) with every request, for a Chroma
// server with token auth; empty sends none.
func WithToken(token string) Option {
	return func(c *client) { c.token = token }
}
