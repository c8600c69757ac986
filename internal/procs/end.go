package procs

import "time"

// End ends a program started from [Command] once it has been asked to stop
// (its stdin closed, say): it waits at most grace for the program to exit,
// then sends its process group SIGTERM and waits at most grace again; then
// it kills the group with SIGKILL, whatever the program left running in
// it, and reaps the program. The program stays unreaped until its group
// has been killed, so the group id cannot have been reused.
//
// The error is [exec.Cmd.Wait]'s.
func End(cmd *Cmd, grace time.Duration) error {
	exited := make(chan error, 1)
	go func() { exited <- waitExit(cmd.Process.Pid) }()
	wait := func() bool {
		select {
		case err := <-exited:
			if err != nil { // no waiting without reaping here: give it its time
				time.Sleep(grace)
				return false
			}
			return true
		case <-time.After(grace):
			return false
		}
	}
	if !wait() {
		_ = cmd.group.terminate()
		wait()
	}
	_ = cmd.group.kill(true)
	return cmd.Wait()
}
