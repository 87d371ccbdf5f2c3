package core

// PersonaLoaded reports whether persona documents are loaded.
// TODO(chat): replaced by the persona loader.
func (s *Service) PersonaLoaded() bool { return false }
