package loadgen

// Validate reports what is wrong with l (nil: RunHostile accepts it), with
// its defaults filled as RunHostile fills them; the error names the
// setting and its value. A command checks its flags with it before it
// waits for the target.
func (l HostileLoad) Validate() error {
	_, err := l.withDefaults()
	return err
}
