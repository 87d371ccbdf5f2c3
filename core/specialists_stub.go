package core

// SpecialistsEnabled reports whether any specialist may run.
// TODO(specialists): replaced by the registry.
func (s *Service) SpecialistsEnabled() bool { return false }
