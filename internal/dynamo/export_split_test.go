package dynamo

// SetSplitHook installs a hook run after each step of a split made in
// steps ("copied", "switched", "indexed"); an error it returns stops the
// split there without any clean-up, as a process stopping would.
func SetSplitHook(s *Store, hook func(step string) error) { s.splitHook = hook }
