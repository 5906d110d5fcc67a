package aml

// Bookkeeping of what an evaluation depended on. Mutexes: nothing else runs while the evaluator does, so an
// Acquire always succeeds, but which Mutexes a method leaves acquired is
// a firmware defect the OS pays for (the next caller waits for ever, or
// ACPICA releases them and complains).

func (e *Evaluator) acquire(t *Term) *Object {
	if len(t.Args()) > 0 {
		if n := t.Args()[0].Node.Resolved(); n != nil && n.Type == TypeMutex {
			e.held = append(e.held, n)
		}
	}
	return Integer(0)
}

func (e *Evaluator) release(t *Term) {
	if len(t.Args()) == 0 {
		return
	}
	n := t.Args()[0].Node.Resolved()
	for i := len(e.held) - 1; i >= 0; i-- {
		if e.held[i] == n {
			e.held = append(e.held[:i], e.held[i+1:]...)
			return
		}
	}
}

// HeldMutexes are the Mutexes the last Evaluate acquired and did not
// release, in acquisition order (a Mutex acquired twice is listed twice).
func (e *Evaluator) HeldMutexes() []*Node { return append([]*Node(nil), e.held...) }

// CondRefOfMisses is how many times the last Evaluate's CondRefOf found
// its object absent: when tables are loaded at run time (Load,
// LoadTable), the object may exist on the machine and the path taken
// differ.
func (e *Evaluator) CondRefOfMisses() int { return e.condMisses }
