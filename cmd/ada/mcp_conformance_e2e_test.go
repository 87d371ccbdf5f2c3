package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// mcpConformanceDir holds the official MCP conformance suite
// (@modelcontextprotocol/conformance, pinned; make node-deps installs it).
var mcpConformanceDir = filepath.Join("..", "..", "tools", "mcpconformance")

// conformanceApplies are the suite's server scenarios that Ada must pass.
var conformanceApplies = []string{
	"server-initialize", "ping", "logging-set-level", "tools-list", "resources-list", "prompts-list",
	"dns-rebinding-protection",
}

// conformanceDoesNotApply are the suite's other server scenarios, each with
// why it does not apply to Ada. Most call fixtures of the suite's reference
// server ("everything server") by name: tools, resources and prompts Ada
// does not have. Ada's own tools are tested by TestMCPClientAcceptance.
var conformanceDoesNotApply = map[string]string{
	"json-schema-2020-12":           "lists the fixture tool json_schema_2020_12_tool; Ada's tools' schemas are checked against openapi.json and by the MCP client test",
	"completion-complete":           "Ada offers no argument completion (it has no prompts or resource templates to complete)",
	"tools-call-simple-text":        "calls the fixture tool test_simple_text, which Ada does not have",
	"tools-call-image":              "calls the fixture tool test_image_content; Ada's tools return text",
	"tools-call-audio":              "calls the fixture tool test_audio_content; Ada's tools return text",
	"tools-call-embedded-resource":  "calls the fixture tool test_embedded_resource; Ada has no resources",
	"tools-call-mixed-content":      "calls the fixture tool test_multiple_content_types, which Ada does not have",
	"tools-call-with-logging":       "calls the fixture tool test_tool_with_logging; Ada's tools send no log messages",
	"tools-call-error":              "calls the fixture tool test_error_handling; Ada's tool errors (isError) are tested in apiserver/mcp and by the MCP client test",
	"tools-call-with-progress":      "calls the fixture tool test_tool_with_progress; Ada's tools send no progress",
	"tools-call-sampling":           "calls the fixture tool test_sampling; Ada never asks the client's model (stateless server, no sampling)",
	"tools-call-elicitation":        "calls the fixture tool test_elicitation; Ada never asks the user (stateless server, no elicitation)",
	"elicitation-sep1034-defaults":  "calls the fixture tool test_elicitation_sep1034_defaults; Ada does not elicit",
	"elicitation-sep1330-enums":     "calls the fixture tool test_elicitation_sep1330_enums; Ada does not elicit",
	"server-sse-polling":            "needs a session and SSE streams; Ada's /mcp is stateless with plain JSON replies (the scenario checks nothing there)",
	"server-sse-multiple-streams":   "needs a session and SSE streams; Ada's /mcp is stateless with plain JSON replies (the scenario checks nothing there)",
	"resources-read-text":           "reads the fixture resource test://static-text; Ada has no resources",
	"resources-read-binary":         "reads the fixture resource test://static-binary; Ada has no resources",
	"resources-templates-read":      "reads the fixture template test://template/{id}/data; Ada has no resources",
	"resources-subscribe":           "subscribes to a fixture resource; Ada has no resources",
	"resources-unsubscribe":         "unsubscribes from a fixture resource; Ada has no resources",
	"prompts-get-simple":            "gets the fixture prompt test_simple_prompt; Ada has no prompts",
	"prompts-get-with-args":         "gets the fixture prompt test_prompt_with_arguments; Ada has no prompts",
	"prompts-get-embedded-resource": "gets the fixture prompt test_prompt_with_embedded_resource; Ada has no prompts",
	"prompts-get-with-image":        "gets the fixture prompt test_prompt_with_image; Ada has no prompts",
}

// conformanceResult is the suite's last line for a scenario.
var conformanceResult = regexp.MustCompile(`Passed: (\d+)/(\d+), (\d+) failed`)

// The official MCP conformance suite against the real program's /mcp,
// without API_KEY (the suite's dns-rebinding-protection scenario is for a
// local server without authentication): every server scenario that applies
// passes with at least one check, and every scenario of the pinned suite
// is either run or listed above with why not, so a newer suite cannot add
// one that is silently skipped.
func TestMCPConformance(t *testing.T) {
	node, err := exec.LookPath("node")
	cli := filepath.Join(mcpConformanceDir, "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js")
	if _, statErr := os.Stat(cli); err != nil || statErr != nil {
		why := "node is not installed"
		if err == nil {
			why = "the conformance suite is not installed (make node-deps runs npm ci in tools/mcpconformance)"
		}
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s: the MCP conformance test must run in CI", why)
		}
		t.Skipf("%s: skipping the MCP conformance test", why)
	}
	cli, _ = filepath.Abs(cli)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	suite := func(args ...string) (string, error) {
		cmd := exec.CommandContext(ctx, node, append([]string{cli}, args...)...)
		cmd.Dir = t.TempDir() // the suite writes results/ where it runs
		out, err := cmd.CombinedOutput()
		return string(out), err
	}

	list, err := suite("list")
	if err != nil {
		t.Fatalf("conformance list: %v\n%s", err, list)
	}
	serverPart, _, _ := strings.Cut(list, "Client scenarios")
	var listed []string
	for _, line := range strings.Split(serverPart, "\n") {
		if name, ok := strings.CutPrefix(strings.TrimSpace(line), "- "); ok {
			listed = append(listed, name)
			_, skip := conformanceDoesNotApply[name]
			if !skip && !slices.Contains(conformanceApplies, name) {
				t.Errorf("server scenario %q is neither run nor listed as not applying, with why", name)
			}
		}
	}
	for _, name := range append(slices.Clone(conformanceApplies), mapKeys(conformanceDoesNotApply)...) {
		if !slices.Contains(listed, name) {
			t.Errorf("scenario %q is not in the pinned suite's list:\n%s", name, list)
		}
	}

	ada := startAda(t, "serve", testEnv(t, nil))
	url := strings.Replace(ada.URL, "127.0.0.1", "localhost", 1) + "/mcp"
	for _, name := range conformanceApplies {
		out, err := suite("server", "--url", url, "--scenario", name)
		m := conformanceResult.FindStringSubmatch(out)
		if err != nil || m == nil || m[1] == "0" || m[1] != m[2] || m[3] != "0" {
			t.Errorf("scenario %s did not pass every check (%v):\n%s", name, err, out)
		}
	}
}

func mapKeys(m map[string]string) []string {
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	return keys
}
