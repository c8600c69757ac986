package config

import (
	"github.com/strata-config/strata/partial"
	"github.com/strata-config/strata/secret"
)

// Partial is one layer of tool configuration: what a file, the
// environment or an override says. See [Config] for the meaning of each
// field.
type Partial struct {
	Tools      ToolsPartial              `toml:"tools" doc:"Tools by name; the '*' entry holds what every tool inherits (run, result, enable)."`
	MCPServers MCPServersPartial         `toml:"mcp_servers" doc:"MCP servers by name: programs started over stdio, or remote servers reached over HTTP."`
	Discover   DiscoverPartial           `toml:"discover" doc:"Where self-describing tools are found."`
	Lock       LockPartial               `toml:"lock" doc:"What the lock of tool definitions (strata.lock) does with a tool that changed."`
	Budget     BudgetPartial             `toml:"budget" doc:"What the tool definitions a model is given may cost (o200k_base tokens), and each provider's limits."`
	Toolsets   ToolsetsPartial           `toml:"toolsets" doc:"Named sets of tools; toolset (or --toolset, STRATA_TOOLSET) chooses the one a run gives the model."`
	Toolset    partial.Value[string]     `toml:"toolset" doc:"The tool set a run gives the model (a name of toolsets); unset, every tool."`
	ToolNames  partial.Value[NameScheme] `toml:"tool_names" doc:"How every MCP server's tools are named, for servers that set no tool_names of their own: a template of {server} (the server's name) and {tool} (the tool's name there), such as \"{server}__{tool}\" or Claude Code's \"mcp__{server}__{tool}\". Unset or \"{tool}\": the servers' own names. [tools.<name>] keys name tools as the catalog does."`
}

// ToolsetsPartial is the partial twin of [Toolsets].
type ToolsetsPartial = partial.Map[ToolsetPartial]

// ToolsetPartial is the partial twin of [Toolset].
type ToolsetPartial struct {
	Tools   partial.List[string]    `toml:"tools" doc:"Patterns over tool names and sources (git_*, mcp.github.*, local.*): * any run of characters, ? one. A plain array replaces a lower layer's; { value = [...], strategy = \"append\" } adds to it."`
	Include partial.List[string]    `toml:"include" doc:"Other sets whose tools belong to this one."`
	Exclude partial.List[string]    `toml:"exclude" doc:"Patterns of tools left out of the set, even those an included set brings."`
	Load    partial.Value[LoadMode] `toml:"load" doc:"How the set's tools load when neither they nor their server say: always or deferred."`
	Clients partial.List[string]    `toml:"clients" doc:"Patterns over MCP clients' names (clientInfo.name): strata serve gives a client that matches this set."`
}

// BudgetPartial is the partial twin of [Budget].
type BudgetPartial struct {
	Tokens    partial.Value[int]  `toml:"tokens" doc:"The most the definitions of a request should cost, in o200k_base tokens; over it, resolve warns and names the biggest tools. 0: no budget."`
	OpenAI    ExportLimitsPartial `toml:"openai" doc:"Limits of the OpenAI export."`
	Anthropic ExportLimitsPartial `toml:"anthropic" doc:"Limits of the Anthropic export."`
	MCP       ExportLimitsPartial `toml:"mcp" doc:"Limits of the MCP export."`
}

// ExportLimitsPartial is the partial twin of [ExportLimits].
type ExportLimitsPartial struct {
	Tools      partial.Value[int]  `toml:"tools" doc:"The most tools one request may carry; over it the export fails. 0 or unset: the provider's limit (OpenAI: 128; Anthropic and MCP: none)."`
	NameLength partial.Value[int]  `toml:"name_length" doc:"The longest tool name the provider takes; 0: the format's own (64 for OpenAI and Anthropic, 128 for MCP)."`
	Rename     partial.Value[bool] `toml:"rename" doc:"Give a tool whose name the provider refuses a name it takes (the same on every run, shown in a warning) instead of leaving it out."`
}

// ToolsPartial is the partial twin of [Tools].
type ToolsPartial = partial.Map[ToolPartial]

// MCPServersPartial is the partial twin of [MCPServers].
type MCPServersPartial = partial.Map[MCPServerPartial]

// ToolPartial is the partial twin of [Tool].
type ToolPartial struct {
	Source      partial.Value[Source]              `toml:"source" doc:"Where the tool comes from: builtin, local, local.<tool>, mcp.<server> or mcp.<server>.<tool>."`
	Command     partial.Value[Command]             `toml:"command" strata:"program" doc:"How a local tool runs: shell words, or { program, args, shell }. {{tool}} and {{context}} render as JSON."`
	Enable      partial.Nested[EnablePartial]      `toml:"enable" doc:"Whether the tool is offered: true, false, on, off, explicit, always, or { state = bool, allow_toggle = any|never|if_named|if_named_or_group }, each field inherited from '*' on its own."`
	Summary     partial.Value[string]              `toml:"summary" doc:"Short description sent to the model."`
	Description partial.Value[string]              `toml:"description" doc:"Longer description; {{description}} inserts the discovered one."`
	Examples    partial.Value[string]              `toml:"examples" doc:"Examples of use, for the model."`
	Run         partial.List[RunRule]              `toml:"run" strata:"prepend" doc:"What happens when the model calls the tool: a mode (ask, unattended, edit, skip), or rules tried in order, the first that holds deciding ({ arg = \"/path\", prefix = \"src/\", mode = \"unattended\" }); an implicit { mode = \"ask\" } ends them. A plain array goes before the lower layers' rules; a mode alone replaces them."`
	Result      partial.List[ResultRule]           `toml:"result" strata:"prepend" doc:"What happens with the result before the model sees it: a mode (unattended, ask, edit, skip), or rules, as run."`
	Policy      partial.Nested[PolicyPartial]      `toml:"policy" doc:"JP's namespace of the run and result policies (RFD D25): policy.run and policy.result, which take the place of run and result where both are set."`
	Parameters  partial.Map[ParameterPartial]      `toml:"parameters" doc:"Overrides of the discovered input schema, by parameter name."`
	Options     partial.Map[partial.Any]           `toml:"options" doc:"Free-form settings passed to the tool when it runs."`
	Questions   partial.Map[QuestionPartial]       `toml:"questions" doc:"Questions the tool may ask, by id, and fixed answers."`
	Env         partial.Map[partial.Value[string]] `toml:"env" doc:"Environment variables set for a local tool's program, besides the base set every program gets."`
	EnvVars     partial.List[string]               `toml:"env_vars" strata:"append" doc:"Names of the host's environment variables a local tool's program inherits, besides the base set; \"*\" inherits them all."`
	Load        partial.Value[LoadMode]            `toml:"load" doc:"When the model is given the definition: always, or deferred (found with a search first). Unset: the server's, then the tool set's, then '*'s."`
	// DiscoverTimeoutSec: see [Tool].DiscoverTimeoutSec.
	DiscoverTimeoutSec partial.Value[float64] `toml:"discover_timeout_sec" doc:"Seconds the tool's discovery may take: its command's answer to the schema action, or the --describe answer of the discovery directories' executable of the tool's name (default: discover.timeout_sec, else 5). A tool that does not answer in time is left out, and remembered for 10 minutes (strata resolve --refresh asks again)."`
}

// ParameterPartial is the partial twin of [Parameter].
type ParameterPartial struct {
	Type             partial.Value[Types]             `toml:"type" doc:"JSON Schema type name, or a list of them."`
	Required         partial.Value[bool]              `toml:"required" doc:"Whether the parameter is required; an override may only make it required."`
	Default          partial.Value[any]               `toml:"default" doc:"Default value; must satisfy the schema."`
	Enum             partial.List[any]                `toml:"enum" doc:"Allowed values; an override may only narrow them."`
	Minimum          partial.Value[float64]           `toml:"minimum" doc:"Smallest number allowed (JSON Schema's minimum); an override may only raise the tool's."`
	Maximum          partial.Value[float64]           `toml:"maximum" doc:"Largest number allowed (JSON Schema's maximum); an override may only lower the tool's."`
	ExclusiveMinimum partial.Value[float64]           `toml:"exclusive_minimum" doc:"Numbers must be above it (JSON Schema's exclusiveMinimum); an override may only raise the tool's."`
	ExclusiveMaximum partial.Value[float64]           `toml:"exclusive_maximum" doc:"Numbers must be below it (JSON Schema's exclusiveMaximum); an override may only lower the tool's."`
	MultipleOf       partial.Value[float64]           `toml:"multiple_of" doc:"Numbers must be a multiple of it (JSON Schema's multipleOf), more than 0; over the tool's, a multiple of it."`
	MinLength        partial.Value[int]               `toml:"min_length" doc:"Fewest characters of a string (JSON Schema's minLength); an override may only raise the tool's."`
	MaxLength        partial.Value[int]               `toml:"max_length" doc:"Most characters of a string (JSON Schema's maxLength); an override may only lower the tool's."`
	Pattern          partial.Value[string]            `toml:"pattern" doc:"Regular expression a string must match (JSON Schema's pattern); it holds besides the tool's own."`
	Format           partial.Value[string]            `toml:"format" doc:"Format a string must have (JSON Schema's format: email, uri, date-time, uuid, ...), checked at call time; only where the tool's schema gives none, or the same."`
	MinItems         partial.Value[int]               `toml:"min_items" doc:"Fewest items of an array (JSON Schema's minItems); an override may only raise the tool's."`
	MaxItems         partial.Value[int]               `toml:"max_items" doc:"Most items of an array (JSON Schema's maxItems); an override may only lower the tool's."`
	UniqueItems      partial.Value[bool]              `toml:"unique_items" doc:"Whether the items of an array must differ (JSON Schema's uniqueItems); an override may only make them."`
	Summary          partial.Value[string]            `toml:"summary" doc:"Short description."`
	Description      partial.Value[string]            `toml:"description" doc:"Longer description."`
	Examples         partial.List[any]                `toml:"examples" doc:"Example values."`
	Items            partial.Nested[ParameterPartial] `toml:"items" doc:"Schema of the items of an array parameter."`
	Properties       partial.Map[ParameterPartial]    `toml:"properties" doc:"Schemas of the properties of an object parameter."`
	AllowDash        partial.Value[bool]              `toml:"allow_dash" doc:"Whether a value that starts with - may be an argument of its own in the tool's command (the program would read it as an option); strata refuses such a value otherwise. Write -- before it in the command instead where the program allows it."`
}

// QuestionPartial is the partial twin of [Question].
type QuestionPartial struct {
	Target partial.Value[Target] `toml:"target" doc:"Who answers: user or assistant."`
	Answer partial.Value[any]    `toml:"answer" doc:"A fixed answer, given without asking."`
}

// MCPServerPartial is the partial twin of [MCPServer].
type MCPServerPartial struct {
	Command           partial.Value[secret.String]              `toml:"command" strata:"program" doc:"Program that runs a local server, started over stdio; a server has a command or a url. A relative path is relative to the file that names it."`
	Args              partial.List[secret.String]               `toml:"args" doc:"Its arguments."`
	Env               partial.Map[partial.Value[secret.String]] `toml:"env" doc:"Environment variables set for it."`
	EnvVars           partial.List[string]                      `toml:"env_vars" strata:"append" doc:"Names of variables it inherits from the host's environment, on top of the base set every program receives; \"*\" inherits them all."`
	Cwd               partial.Value[secret.String]              `toml:"cwd" strata:"path" doc:"Working directory; a relative path is relative to the file that names it."`
	URL               partial.Value[secret.String]              `toml:"url" doc:"URL of a remote server, reached over streamable HTTP (or HTTP+SSE where the server offers only that); a server has a command or a url."`
	Headers           partial.Map[partial.Value[secret.String]] `toml:"headers" doc:"HTTP headers sent to a remote server."`
	BearerTokenEnvVar partial.Value[string]                     `toml:"bearer_token_env_var" doc:"Variable of the host's environment whose value a remote server receives as Authorization: Bearer <value>."`
	AllowHTTP         partial.Value[bool]                       `toml:"allow_http" doc:"Allow a url of plain http to a host other than this machine (localhost, 127.0.0.0/8 and ::1 need no permission): the token, the headers and every message travel in clear."`
	InProcess         partial.Value[bool]                       `toml:"in_process" doc:"The host application serves this server in its own process, under this name (strata.InProcess sets it): strata starts and dials nothing, and the server has no command or url."`
	OAuth             partial.Nested[OAuthPartial]              `toml:"oauth" doc:"How strata signs in to a remote server that needs it (strata login); every key is optional: without any, the authorization server is discovered and strata registers itself there."`
	Enabled           partial.Value[bool]                       `toml:"enabled" doc:"When false, the server is not used (default true)."`
	Optional          partial.Value[bool]                       `toml:"optional" doc:"When true, a server that fails to start is reported and its tools left out."`
	StartupTimeoutSec partial.Value[float64]                    `toml:"startup_timeout_sec" doc:"Seconds to wait for the server to start (unset or 0: 10; for a launcher that installs what it runs, such as npx or uvx, 60, and 300 when it installs first). strata never stops npx midway through an install: past this time it waits for the install to end."`
	ToolTimeoutSec    partial.Value[float64]                    `toml:"tool_timeout_sec" doc:"Seconds a tool call may take (default 60)."`
	Expose            partial.Value[Expose]                     `toml:"expose" doc:"Tools of the server that join the catalog under their own names: \"all\" (the default), \"none\" (its tools come in only through a tool's source = \"mcp.<server>.<tool>\") or a list; enabled_tools and disabled_tools narrow it further."`
	EnabledTools      partial.Value[ToolNames]                  `toml:"enabled_tools" doc:"Only these tools of the server are used (Codex's allow list); [] allows none."`
	DisabledTools     partial.Value[ToolNames]                  `toml:"disabled_tools" doc:"These tools of the server are never used (Codex's deny list, applied after enabled_tools)."`
	Load              partial.Value[LoadMode]                   `toml:"load" doc:"When the model is given the definitions of the server's tools that set none: always or deferred."`
	Namespace         partial.Value[string]                     `toml:"namespace" doc:"Where strata serve offers the server's resources and prompts, put before their URIs (<namespace>+<uri>) and names (<namespace>.<name>), so that two servers' do not collide; letters, digits and - (starting with a letter). Without it they are served as the server gives them."`
	DisabledPrompts   partial.List[string]                      `toml:"disabled_prompts" doc:"Prompts of the server that strata serve leaves out, by the server's names."`
	PromptNames       partial.Map[partial.Value[string]]        `toml:"prompt_names" doc:"Renames prompts of the server where strata serve offers them: the server's name = the name served (taken as it is, without the namespace)."`
	ToolNames         partial.Value[NameScheme]                 `toml:"tool_names" doc:"How the server's tools are named in the catalog: a template of {server} and {tool}, such as \"{server}__{tool}\"; unset, the top-level tool_names, else the server's own names (\"{tool}\"). expose, enabled_tools and disabled_tools name tools as the server does."`
}

// OAuthPartial is the partial twin of [OAuth].
type OAuthPartial struct {
	ClientID           partial.Value[string] `toml:"client_id" doc:"A client registered with the authorization server beforehand, used instead of registering one."`
	ClientSecretEnvVar partial.Value[string] `toml:"client_secret_env_var" doc:"Variable of the host's environment that holds the secret of client_id (a confidential client)."`
	PrivateKeyFile     partial.Value[string] `toml:"private_key_file" strata:"path" doc:"PEM file of the EC P-256 private key client_id authenticates with (private_key_jwt), instead of a secret; a relative path is relative to the file that names it."`
	ClientMetadataURL  partial.Value[string] `toml:"client_metadata_url" doc:"https URL of a client ID metadata document describing strata as a client, used as its client_id where the authorization server takes one (else strata registers dynamically)."`
	Scopes             partial.List[string]  `toml:"scopes" doc:"Scopes to ask for, instead of those the server names."`
	Grant              partial.Value[string] `toml:"grant" doc:"How a token is obtained: authorization_code (the default: a user signs in with a browser, strata login) or client_credentials (a machine, with client_id and its secret or private key: no browser)."`
	CallbackPort       partial.Value[int]    `toml:"callback_port" doc:"Loopback port the browser returns to after sign-in (http://127.0.0.1:<port>/callback); 0, the default, takes a free one."`
}

// DiscoverPartial is the partial twin of [Discover].
type DiscoverPartial struct {
	Dirs       partial.List[string]   `toml:"dirs" strata:"append,path" doc:"Directories whose executables answer --describe; a plain array appends to lower layers; a relative path is relative to the file that names it."`
	TimeoutSec partial.Value[float64] `toml:"timeout_sec" doc:"Seconds each executable of the discovery directories (and each command asked for its schema) may take to answer (default 5); tools.<name>.discover_timeout_sec overrides it for one tool. A tool that does not answer in time is left out, and remembered for 10 minutes (strata resolve --refresh asks again)."`
}

// Finalize applies layer p to the library's defaults ([Default]) and
// validates the result.
func Finalize(p *Partial) (Config, error) {
	return partial.Finalize(p, Default())
}

// ToPartial returns the layer that turns the defaults into c: the fields
// of c that differ from [Default].
func ToPartial(c Config) *Partial {
	p, err := partial.From[Partial](c, Default())
	if err != nil {
		panic(err) // the model's own types always match
	}
	return p
}
