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
