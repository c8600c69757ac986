package userdir

import (
	"path/filepath"
	"testing"
)

func TestConfig(t *testing.T) {
	tests := []struct {
		name    string
		environ []string
		want    string
	}{
		{"the application's variable first", []string{"MYAPP_CONFIG_HOME=/c", "XDG_CONFIG_HOME=/x", "HOME=/h"}, "/c"},
		{"then XDG", []string{"XDG_CONFIG_HOME=/x", "HOME=/h"}, filepath.Join("/x", "myapp")},
		{"then HOME", []string{"HOME=/h"}, filepath.Join("/h", ".config", "myapp")},
		{"the last one counts", []string{"HOME=/a", "HOME=/h"}, filepath.Join("/h", ".config", "myapp")},
		{"an empty value is none", []string{"MYAPP_CONFIG_HOME=", "HOME=/h"}, filepath.Join("/h", ".config", "myapp")},
		{"none", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Config("myapp", Getenv(tt.environ)); got != tt.want {
				t.Errorf("Config = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestConfigAt(t *testing.T) {
	home := filepath.Join(string(filepath.Separator), "h")
	tests := []struct {
		name    string
		dir     string
		environ []string
		want    string
	}{
		{"the application's variable first", "~/.myapp", []string{"MYAPP_CONFIG_HOME=/c", "HOME=" + home}, "/c"},
		{"then the host's place, under ~", "~/.myapp", []string{"XDG_CONFIG_HOME=/x", "HOME=" + home}, filepath.Join(home, ".myapp")},
		{"absolute", filepath.Join(home, "etc", "myapp"), []string{"XDG_CONFIG_HOME=/x"}, filepath.Join(home, "etc", "myapp")},
		{"~ alone", "~", []string{"HOME=" + home}, home},
		{"~ without a home", "~/.myapp", nil, ""},
		{"~user is not the home directory", "~other/.myapp", []string{"HOME=" + home}, ""},
		{"relative", ".myapp", []string{"HOME=" + home}, ""},
		{"none: as Config", "", []string{"HOME=" + home}, filepath.Join(home, ".config", "myapp")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ConfigAt("myapp", tt.dir, Getenv(tt.environ)); got != tt.want {
				t.Errorf("ConfigAt(%q) = %q, want %q", tt.dir, got, tt.want)
			}
		})
	}
}
