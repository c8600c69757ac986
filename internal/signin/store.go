package signin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	"github.com/zalando/go-keyring"
	"golang.org/x/oauth2"

	"github.com/strata-config/strata/internal/filelock"
	"github.com/strata-config/strata/internal/readfile"
	"github.com/strata-config/strata/internal/userdir"
)

// Store keeps sign-ins, each under its server's [Resource]: in the OS
// keychain (macOS Keychain, Windows Credential Manager, the Secret
// Service of a Linux desktop) when Keychain is set and one answers, else
// in File, a JSON file of mode 0600 in a directory of mode 0700, changed
// under a lock ([filelock]) and replaced atomically.
type Store struct {
	// Service names strata's items in the keychain ("strata").
	Service string
	// File is where sign-ins are kept without a keychain.
	File string
	// Keychain lets the store use the OS keychain (see [KeychainLikely]).
	Keychain bool

	mu       sync.Mutex
	fallback error // why the keychain did not answer, once it did not
}

// MaxFile bounds the file of sign-ins: a sign-in takes a few kilobytes
// (tokens that are JWTs of a kilobyte or two), so 4 MiB is a thousand of
// them.
const MaxFile = 4 << 20

// stored is a record as it is kept: the one place secrets are written as
// their values.
type stored struct {
	Grant        string    `json:"grant,omitempty"`
	TokenURL     string    `json:"token_url,omitempty"`
	AuthStyle    int       `json:"auth_style,omitempty"`
	ClientID     string    `json:"client_id,omitempty"`
	ClientSecret string    `json:"client_secret,omitempty"`
	Scopes       []string  `json:"scopes,omitempty"`
	Wanted       []string  `json:"wanted,omitempty"`
	Access       string    `json:"access_token"`
	Refresh      string    `json:"refresh_token,omitempty"`
	TokenType    string    `json:"token_type,omitempty"`
	Expiry       time.Time `json:"expiry,omitzero"`
}

func toStored(r *Record) stored {
	return stored{
		Grant: r.Grant, TokenURL: r.TokenURL, AuthStyle: int(r.AuthStyle), ClientID: r.ClientID, ClientSecret: r.ClientSecret.v,
		Scopes: r.Scopes, Wanted: r.Wanted, Access: r.Access.v, Refresh: r.Refresh.v, TokenType: r.TokenType, Expiry: r.Expiry,
	}
}

func (s stored) record(resource string) *Record {
	return &Record{
		Resource: resource, Grant: s.Grant, TokenURL: s.TokenURL, AuthStyle: oauth2.AuthStyle(s.AuthStyle), ClientID: s.ClientID, ClientSecret: Secret{s.ClientSecret},
		Scopes: s.Scopes, Wanted: s.Wanted, Access: Secret{s.Access}, Refresh: Secret{s.Refresh}, TokenType: s.TokenType, Expiry: s.Expiry,
	}
}

// file is the form of [Store].File.
type file struct {
	Note   string            `json:"note"`
	Tokens map[string]stored `json:"tokens"`
}

const fileNote = "Sign-ins to remote MCP servers, written by strata login: secrets, kept here because no OS keychain answered. Each token goes only to the server it is listed under."

// DefaultFile returns where an application called name keeps sign-ins
// without a keychain: $XDG_DATA_HOME/<name>, else
// $HOME/.local/share/<name> (on Windows %LOCALAPPDATA%\<name>), with
// tokens.json in it; "" when none of them is set. (No <NAME>_ variable:
// strata reads those as config.)
func DefaultFile(name string, environ []string) string {
	get := userdir.Getenv(environ)
	dir := ""
	switch {
	case get("XDG_DATA_HOME") != "":
		dir = filepath.Join(get("XDG_DATA_HOME"), name)
	case runtime.GOOS == "windows" && get("LOCALAPPDATA") != "":
		dir = filepath.Join(get("LOCALAPPDATA"), name)
	case get("HOME") != "":
		dir = filepath.Join(get("HOME"), ".local", "share", name)
	}
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, "tokens.json")
}

// KeychainLikely reports whether an OS keychain may answer in a host of
// environ: on macOS and Windows, always; elsewhere when a D-Bus session
// bus is named (DBUS_SESSION_BUS_ADDRESS), where a desktop's Secret
// Service listens. Without one strata does not ask: D-Bus would try to
// start a bus of its own.
func KeychainLikely(environ []string) bool {
	switch runtime.GOOS {
	case "darwin", "windows":
		return true
	}
	return userdir.Getenv(environ)("DBUS_SESSION_BUS_ADDRESS") != ""
}

// Where says where the store keeps sign-ins: "the OS keychain" or its
// file.
func (s *Store) Where() string {
	if s.keychain() {
		return "the OS keychain"
	}
	return s.File + " (mode 0600: no OS keychain here)"
}

// Fallback returns why the keychain did not answer, once it did not
// (the store then keeps sign-ins in its file), or nil.
func (s *Store) Fallback() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.fallback
}

func (s *Store) keychain() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.Keychain && s.fallback == nil
}

// keychainFailed records that the keychain did not answer with err:
// the store uses its file from then on.
func (s *Store) keychainFailed(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fallback == nil {
		s.fallback = err
	}
}

// Load returns the sign-in kept for the server at resource (a
// [Resource]), or an error wrapping [ErrNoSignIn] when there is none.
func (s *Store) Load(ctx context.Context, resource string) (*Record, error) {
	if s.keychain() {
		v, err := keyring.Get(s.Service, resource)
		switch {
		case err == nil:
			var st stored
			if err := json.Unmarshal([]byte(v), &st); err != nil {
				return nil, fmt.Errorf("the sign-in kept in the OS keychain for %s does not read: %v", resource, err)
			}
			return st.record(resource), nil
		case errors.Is(err, keyring.ErrNotFound):
			// A sign-in kept in the file before the keychain answered.
		default:
			s.keychainFailed(err)
		}
	}
	f, err := s.read(ctx)
	if err != nil {
		return nil, err
	}
	st, ok := f.Tokens[resource]
	if !ok {
		return nil, fmt.Errorf("%w to %s", ErrNoSignIn, resource)
	}
	return st.record(resource), nil
}

// Save keeps r under its Resource, replacing what was kept.
func (s *Store) Save(ctx context.Context, r *Record) error {
	if s.keychain() {
		b, err := json.Marshal(toStored(r))
		if err != nil {
			return err
		}
		err = keyring.Set(s.Service, r.Resource, string(b))
		if err == nil {
			// One place only: a copy in the file would outlive a logout
			// that found the keychain's.
			return s.update(ctx, func(f *file) { delete(f.Tokens, r.Resource) }, true)
		}
		s.keychainFailed(err)
	}
	return s.update(ctx, func(f *file) { f.Tokens[r.Resource] = toStored(r) }, false)
}

// Delete removes the sign-in kept for resource, from the keychain and
// the file, and reports whether there was one.
func (s *Store) Delete(ctx context.Context, resource string) (bool, error) {
	found := false
	if s.keychain() {
		switch err := keyring.Delete(s.Service, resource); {
		case err == nil:
			found = true
		case errors.Is(err, keyring.ErrNotFound):
		default:
			s.keychainFailed(err)
		}
	}
	err := s.update(ctx, func(f *file) {
		if _, ok := f.Tokens[resource]; ok {
			found = true
			delete(f.Tokens, resource)
		}
	}, true)
	return found, err
}

// read reads the file; a missing file holds nothing.
func (s *Store) read(ctx context.Context) (*file, error) {
	f := &file{Tokens: map[string]stored{}}
	if s.File == "" {
		return f, nil
	}
	b, err := readfile.Regular(ctx, s.File, MaxFile, "the file of sign-ins")
	if errors.Is(err, fs.ErrNotExist) {
		return f, nil
	}
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, f); err != nil {
		return nil, fmt.Errorf("%s does not read: %v; remove it and sign in again", s.File, err)
	}
	if f.Tokens == nil {
		f.Tokens = map[string]stored{}
	}
	return f, nil
}

// update changes the file under its lock and writes it back, mode 0600;
// onlyIfThere leaves a file that does not exist as it is.
func (s *Store) update(ctx context.Context, change func(*file), onlyIfThere bool) error {
	if s.File == "" {
		if onlyIfThere {
			return nil
		}
		return errors.New("there is no place to keep sign-ins: set HOME or XDG_DATA_HOME")
	}
	if onlyIfThere {
		if _, err := os.Lstat(s.File); errors.Is(err, fs.ErrNotExist) {
			return nil
		}
	}
	dir := filepath.Dir(s.File)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	unlock, err := filelock.Lock(s.File + ".lock")
	if err != nil {
		return fmt.Errorf("cannot lock the file of sign-ins: %w", err)
	}
	defer unlock()
	f, err := s.read(ctx)
	if err != nil {
		return err
	}
	change(f)
	f.Note = fileNote
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, filepath.Base(s.File)+".*.tmp")
	if err != nil {
		return err
	}
	// CreateTemp makes the file 0600 already; Chmod says so where a
	// umask or a platform would differ.
	_ = tmp.Chmod(0o600)
	_, werr := tmp.Write(append(b, '\n'))
	serr := tmp.Sync()
	cerr := tmp.Close()
	if err := errors.Join(werr, serr, cerr); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), s.File); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return nil
}
