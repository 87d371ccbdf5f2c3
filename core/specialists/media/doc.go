// Package media reads what the user is listening to from a
// ListenBrainz-compatible music provider. Client serves the
// /v1/media/musicprovider endpoint; Specialist is the "media" specialist built
// on it. It imports only core and core/internal/remote (its HTTP errors).
package media
