package procs

import (
	"fmt"

	"golang.org/x/sys/windows"
)

// waitExit blocks until the child pid has exited, without reaping it:
// exec.Cmd holds a handle to the process until Wait, so its id cannot be
// reused meanwhile.
func waitExit(pid int) error {
	h, err := windows.OpenProcess(windows.SYNCHRONIZE, false, uint32(pid))
	if err != nil {
		return err
	}
	defer windows.CloseHandle(h)
	event, err := windows.WaitForSingleObject(h, windows.INFINITE)
	if err != nil {
		return err
	}
	if event != windows.WAIT_OBJECT_0 {
		return fmt.Errorf("waiting for process %d: wait result %#x", pid, event)
	}
	return nil
}
