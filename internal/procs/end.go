package procs

import "time"

// End ends a program started from [Command] once it has been asked to stop
// (its stdin closed, say): it waits at most wait for the program to exit,
// then sends its process group SIGTERM and waits at most grace; then it
// kills the group with SIGKILL, whatever the program left running in it,
// and reaps the program. A wait of 0 sends SIGTERM at once, for a program
// that has nothing to finish. The program stays unreaped until its group
// has been killed, so the group id cannot have been reused.
//
// The error is [exec.Cmd.Wait]'s.
func End(cmd *Cmd, wait, grace time.Duration) error {
	exited := make(chan error, 1)
	go func() { exited <- waitExit(cmd.Process.Pid) }()
	exit := func(grace time.Duration) bool {
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
	if wait == 0 || !exit(wait) {
		_ = cmd.group.terminate()
		exit(grace)
	}
	_ = cmd.group.kill(true)
	return cmd.Wait()
}
