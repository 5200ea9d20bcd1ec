package device

// Add adds a profile built elsewhere (parsed with ParseProfiles, say) to the registry,
// under the same rules as a profile read from a file: its name must be new.
func (r *Registry) Add(p *Profile) error { return r.add(p) }
