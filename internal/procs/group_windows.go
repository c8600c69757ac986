package procs

import (
	"errors"
	"fmt"
	"os"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

// osGroup is the Job Object a program runs in: every process the program
// starts is in it too, unless it breaks away from the job. It is Windows's
// process group: terminating the job kills them all, and the job's handle
// is ours alone, so unlike a Unix process group id it cannot be reused.
type osGroup struct {
	job windows.Handle // 0 before start and after release
	pid uint32         // the program's, which is also the id of its console process group
}

// procAttr starts a program suspended, so that it is in its job before it
// runs any code (a child it started before would be out of the job), and
// as the leader of a new console process group, so that a CTRL_BREAK_EVENT
// reaches it and its children but not strata.
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{CreationFlags: windows.CREATE_SUSPENDED | windows.CREATE_NEW_PROCESS_GROUP}
}

// start puts the suspended program p in a job of its own, one that
// terminates its processes when its last handle is closed (by release, or
// by the system when strata exits, however it exits), then lets the
// program run.
func (g *osGroup) start(p *os.Process) error {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return fmt.Errorf("creating a job object: %w", err)
	}
	g.job, g.pid = job, uint32(p.Pid)
	var info windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION
	info.BasicLimitInformation.LimitFlags = windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		return fmt.Errorf("setting up the job object: %w", err)
	}
	// The process cannot have exited, nor its id been reused: it is
	// suspended, and exec.Cmd holds a handle to it.
	h, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, g.pid)
	if err != nil {
		return fmt.Errorf("opening the program's process: %w", err)
	}
	defer windows.CloseHandle(h)
	if err := windows.AssignProcessToJobObject(job, h); err != nil {
		return fmt.Errorf("putting the program in its job object: %w", err)
	}
	return resumeThreads(g.pid)
}

// resumeThreads resumes the threads of the suspended process pid: the one
// a suspended process has.
func resumeThreads(pid uint32) error {
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPTHREAD, 0)
	if err != nil {
		return fmt.Errorf("listing the program's threads: %w", err)
	}
	defer windows.CloseHandle(snap)
	entry := windows.ThreadEntry32{Size: uint32(unsafe.Sizeof(windows.ThreadEntry32{}))}
	resumed := 0
	next := windows.Thread32First(snap, &entry)
	for ; next == nil; next = windows.Thread32Next(snap, &entry) {
		if entry.OwnerProcessID != pid {
			continue
		}
		th, err := windows.OpenThread(windows.THREAD_SUSPEND_RESUME, false, entry.ThreadID)
		if err != nil {
			return fmt.Errorf("opening the program's thread: %w", err)
		}
		_, err = windows.ResumeThread(th)
		windows.CloseHandle(th)
		if err != nil {
			return fmt.Errorf("resuming the program's thread: %w", err)
		}
		resumed++
	}
	if !errors.Is(next, windows.ERROR_NO_MORE_FILES) {
		return fmt.Errorf("listing the program's threads: %w", next)
	}
	if resumed == 0 {
		return errors.New("the program has no thread to resume")
	}
	return nil
}

// kill terminates every process of the job.
func (g *osGroup) kill() error {
	if g.job == 0 {
		return os.ErrProcessDone
	}
	return windows.TerminateJobObject(g.job, 1)
}

// terminate sends CTRL_BREAK_EVENT to the program's console process group.
// It reaches only programs attached to strata's console; the others are
// killed by [End] once its second grace has passed.
func (g *osGroup) terminate() error {
	if g.job == 0 {
		return os.ErrProcessDone
	}
	return windows.GenerateConsoleCtrlEvent(windows.CTRL_BREAK_EVENT, g.pid)
}

// release closes the job, which terminates whatever is left in it.
func (g *osGroup) release() {
	if g.job != 0 {
		_ = windows.CloseHandle(g.job)
		g.job = 0
	}
}
