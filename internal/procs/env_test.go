package procs

import (
	"context"
	"os/exec"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestEnv(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		host    []string
		set     map[string]string
		inherit []string
		windows bool
		want    []string
	}{
		{
			name: "keeps the base set only, sorted",
			host: []string{
				"TERM=xterm", "COLORTERM=truecolor", "SECRET_TOKEN=x", "PATH=/bin", "HOME=/h", "USER=u", "LOGNAME=u",
				"SHELL=/bin/sh", "LANG=C.UTF-8", "LANGUAGE=en", "LC_ALL=C", "LC_TIME=de_DE",
				"TZ=UTC", "TMPDIR=/tmp", "TMP=/t", "TEMP=/t2", "GOPATH=/go", "LD_PRELOAD=/evil.so", "PWD=/w", "LC_=x",
				"XLC_ALL=y", "path=/lower", "GITHUB_TOKEN=secret", "SYSTEMROOT=C:\\Windows",
			},
			want: []string{
				"COLORTERM=truecolor", "HOME=/h", "LANG=C.UTF-8", "LANGUAGE=en", "LC_ALL=C", "LC_TIME=de_DE", "LOGNAME=u",
				"PATH=/bin", "SHELL=/bin/sh", "TEMP=/t2", "TERM=xterm", "TMP=/t", "TMPDIR=/tmp", "TZ=UTC", "USER=u",
			},
		},
		{
			name: "proxies and certificate bundles, both cases",
			host: []string{
				"HTTP_PROXY=http://p:3128", "HTTPS_PROXY=http://p:3128", "NO_PROXY=localhost", "ALL_PROXY=socks5://p",
				"http_proxy=http://q", "https_proxy=http://q", "no_proxy=.local", "all_proxy=socks5://q", "FTP_PROXY=ftp://p",
				"SSL_CERT_FILE=/ca.pem", "SSL_CERT_DIR=/ca", "NODE_EXTRA_CA_CERTS=/ca.pem",
				"REQUESTS_CA_BUNDLE=/ca.pem", "CURL_CA_BUNDLE=/ca.pem", "AWS_SECRET_ACCESS_KEY=k",
			},
			want: []string{
				"ALL_PROXY=socks5://p", "CURL_CA_BUNDLE=/ca.pem", "HTTPS_PROXY=http://p:3128", "HTTP_PROXY=http://p:3128",
				"NODE_EXTRA_CA_CERTS=/ca.pem", "NO_PROXY=localhost", "REQUESTS_CA_BUNDLE=/ca.pem",
				"SSL_CERT_DIR=/ca", "SSL_CERT_FILE=/ca.pem",
				"all_proxy=socks5://q", "http_proxy=http://q", "https_proxy=http://q", "no_proxy=.local",
			},
		},
		{
			name:    "set wins and adds",
			host:    []string{"PATH=/bin", "HOME=/h"},
			set:     map[string]string{"PATH": "/tools/bin", "API_KEY": "k", "EMPTY": ""},
			want:    []string{"API_KEY=k", "EMPTY=", "HOME=/h", "PATH=/tools/bin"},
			inherit: nil,
		},
		{
			name:    "inherited by name; unset names are left out",
			host:    []string{"PATH=/bin", "GITHUB_TOKEN=ghp", "OTHER=o", "EMPTY="},
			inherit: []string{"GITHUB_TOKEN", "MISSING", "EMPTY", "", "A=B"},
			want:    []string{"EMPTY=", "GITHUB_TOKEN=ghp", "PATH=/bin"},
		},
		{
			name:    "everything inherited but the shell's directories and last command; set still wins",
			host:    []string{"PATH=/bin", "GITHUB_TOKEN=ghp", "MCPHOST_MODEL=m", "PWD=/w", "OLDPWD=/o", "_=/usr/bin/strata", "SHLVL=2", "EMPTY=", "TOKEN=host"},
			inherit: []string{"*"},
			set:     map[string]string{"TOKEN": "set"},
			want:    []string{"EMPTY=", "GITHUB_TOKEN=ghp", "MCPHOST_MODEL=m", "PATH=/bin", "SHLVL=2", "TOKEN=set"},
		},
		{
			name:    "Windows: everything inherited, the directories in any case left out",
			windows: true,
			host:    []string{"Path=C:\\bin", "Secret=s", "pwd=C:\\w"},
			inherit: []string{"GITHUB_TOKEN", "*"},
			want:    []string{"Path=C:\\bin", "Secret=s"},
		},
		{
			name:    "set wins over inherited",
			host:    []string{"TOKEN=host"},
			inherit: []string{"TOKEN"},
			set:     map[string]string{"TOKEN": "set"},
			want:    []string{"TOKEN=set"},
		},
		{
			name: "the last of a repeated variable counts",
			host: []string{"PATH=/first", "PATH=/last"},
			want: []string{"PATH=/last"},
		},
		{
			name: "values keep their = signs",
			host: []string{"LC_ALL=a=b"},
			want: []string{"LC_ALL=a=b"},
		},
		{
			name: "malformed entries and names are left out",
			host: []string{"PATH", "=x", "", "A\x00B=c"},
			set:  map[string]string{"": "x", "A=B": "y", "N\x00UL": "z"},
			want: []string{},
		},
		{
			name: "nothing",
			want: []string{},
		},
		{
			name: "names are exact outside Windows",
			host: []string{"Path=/x", "SystemRoot=C:\\Windows", "github_token=t"},
			set:  map[string]string{"path": "/y"},
			inherit: []string{
				"GITHUB_TOKEN",
			},
			want: []string{"path=/y"},
		},
		{
			name:    "Windows: the system's variables, names in any case, the host's spelling kept",
			windows: true,
			host: []string{
				"Path=C:\\bin", "SystemRoot=C:\\Windows", "windir=C:\\Windows", "SystemDrive=C:", "ComSpec=cmd.exe",
				"PATHEXT=.COM;.EXE", "USERPROFILE=C:\\Users\\u", "USERNAME=u", "USERDOMAIN=d", "HOMEDRIVE=C:",
				"HOMEPATH=\\Users\\u", "APPDATA=C:\\a", "LOCALAPPDATA=C:\\l", "ProgramData=C:\\pd",
				"ProgramFiles=C:\\pf", "ProgramFiles(x86)=C:\\pf86", "ProgramW6432=C:\\pf", "CommonProgramFiles=C:\\c",
				"NUMBER_OF_PROCESSORS=2", "PROCESSOR_ARCHITECTURE=AMD64", "OS=Windows_NT", "Secret=s", "github_token=t",
			},
			inherit: []string{"GITHUB_TOKEN"},
			set:     map[string]string{"PATH": "C:\\tools"},
			want: []string{
				"APPDATA=C:\\a", "CommonProgramFiles=C:\\c", "ComSpec=cmd.exe", "github_token=t", "HOMEDRIVE=C:",
				"HOMEPATH=\\Users\\u", "LOCALAPPDATA=C:\\l", "NUMBER_OF_PROCESSORS=2", "OS=Windows_NT",
				"PATH=C:\\tools", "PATHEXT=.COM;.EXE", "PROCESSOR_ARCHITECTURE=AMD64", "ProgramData=C:\\pd",
				"ProgramFiles=C:\\pf", "ProgramFiles(x86)=C:\\pf86", "ProgramW6432=C:\\pf", "SystemDrive=C:",
				"SystemRoot=C:\\Windows", "USERDOMAIN=d", "USERNAME=u", "USERPROFILE=C:\\Users\\u", "windir=C:\\Windows",
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := env(tc.host, tc.set, tc.inherit, tc.windows)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Env (-want +got):\n%s", diff)
			}
		})
	}
}

// TestEnvReachesProgram runs a real program with the environment Env
// builds and reads back what it saw.
func TestEnvReachesProgram(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("uses env(1)")
	}
	envBin, err := exec.LookPath("env")
	if err != nil {
		t.Skip("no env program")
	}
	host := []string{
		"PATH=/usr/bin:/bin", "HOME=/home/u", "HTTPS_PROXY=http://proxy:3128", "SSL_CERT_FILE=/etc/ca.pem",
		"GITHUB_TOKEN=ghp_secret", "AWS_SECRET_ACCESS_KEY=never", "LD_PRELOAD=/evil.so",
	}
	res, err := Run(context.Background(), Invocation{
		Program: envBin,
		Env:     Env(host, map[string]string{"LOG": "1"}, []string{"GITHUB_TOKEN"}),
	})
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Fields(string(res.Stdout))
	want := []string{
		"GITHUB_TOKEN=ghp_secret", "HOME=/home/u", "HTTPS_PROXY=http://proxy:3128", "LOG=1",
		"PATH=/usr/bin:/bin", "SSL_CERT_FILE=/etc/ca.pem",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the program's environment (-want +got):\n%s", diff)
	}
}
