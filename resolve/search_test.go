package resolve_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-config/strata/resolve"
)

func searchDefs() []resolve.Definition {
	d := func(name, summary, desc, params string) resolve.Definition {
		return resolve.Definition{Name: name, Summary: summary, Description: desc, InputSchema: resolve.MustSchema(`{"type":"object","properties":{` + params + `}}`)}
	}
	return []resolve.Definition{
		d("deploy_start", "Start a deployment.", "Starts the service.", `"service":{},"region":{}`),
		d("deploy_rollback", "Roll a deployment back.", "Goes back to the release before.", `"service":{},"release":{}`),
		d("getWeather", "Weather of a city.", "Forecast for today.", `"city":{}`),
		d("db_query", "Query the database.", "Runs SQL. A deployment may lock it.", `"sql":{}`),
		d("db_backup", "Back the database up.", "Writes a dump.", `"target":{}`),
	}
}

// TestSearch: words rank names and summaries above descriptions; a
// regular expression matches names first; bad queries are errors.
func TestSearch(t *testing.T) {
	tests := []struct {
		name  string
		query string
		regex bool
		limit int
		want  []string
		err   string
	}{
		{name: "words over names and summaries first", query: "deployment rollback", want: []string{"deploy_rollback", "deploy_start", "db_query"}},
		{name: "camel case names split", query: "weather", want: []string{"getWeather"}},
		{name: "parameter names", query: "sql", want: []string{"db_query"}},
		{name: "a limit", query: "database", limit: 1, want: []string{"db_backup"}},
		{name: "nothing matches", query: "kubernetes", want: nil},
		{name: "regex, case-insensitive, names first", query: "^DB_|lock", regex: true, want: []string{"db_backup", "db_query"}},
		{name: "regex over descriptions", query: "release", regex: true, want: []string{"deploy_rollback"}},
		{name: "a bad regex", query: "(", regex: true, err: "the query is not a regular expression"},
		{name: "a query too long", query: strings.Repeat("a", resolve.MaxSearchQuery+1), err: "at most 200"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := resolve.Search(searchDefs(), tt.query, tt.regex, tt.limit)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want %q", err, tt.err)
				}
				return
			}
			var names []string
			for _, d := range got {
				names = append(names, d.Name)
			}
			if diff := cmp.Diff(tt.want, names); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
