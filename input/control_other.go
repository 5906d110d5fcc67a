//go:build !linux

package input

// LiveControl returns a Control that refuses every action: fwcheck acts on
// machines only under Linux.
func LiveControl(root string) Control { return noControl{} }

type noControl struct{}

func (noControl) Mark(string) error { return ErrNoControl }
func (noControl) Suspend(SuspendRequest) (SuspendResult, error) {
	return SuspendResult{}, ErrNoControl
}
func (noControl) Reboot(string) error { return ErrNoControl }
