package media

// Source names the provider protocol in every core.Listening.
const Source = "listenbrainz"
