//go:build unix

package procs

import (
	"errors"
	"os"
	"syscall"
)

// osGroup is the process group a program leads.
type osGroup struct {
	pid int // the program's, which is the group's id; 0 before start
}

// procAttr starts a program in a process group of its own.
func procAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

func (g *osGroup) start(p *os.Process) error {
	g.pid = p.Pid
	return nil
}

// kill sends SIGKILL to the group.
func (g *osGroup) kill() error { return g.signal(syscall.SIGKILL) }

// terminate sends SIGTERM to the group.
func (g *osGroup) terminate() error { return g.signal(syscall.SIGTERM) }

func (g *osGroup) signal(sig syscall.Signal) error {
	if g.pid <= 0 {
		return os.ErrProcessDone
	}
	err := syscall.Kill(-g.pid, sig)
	if errors.Is(err, syscall.ESRCH) {
		return os.ErrProcessDone
	}
	return err
}

// release does nothing: a process group needs no letting go of.
func (g *osGroup) release() {}
