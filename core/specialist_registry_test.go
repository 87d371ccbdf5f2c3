package core_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/core/embed"
)

type stubSpecialist struct{ info core.SpecialistInfo }

func (s stubSpecialist) Info() core.SpecialistInfo { return s.info }
func (s stubSpecialist) Run(context.Context, core.SpecialistCall) (string, error) {
	return "ok", nil
}

func stub(name string, p core.Priority, enabled bool) stubSpecialist {
	return stubSpecialist{core.SpecialistInfo{Name: name, Priority: p, Enabled: enabled, Description: name + " helps.",
		InputSchema: json.RawMessage(`{"type":"object"}`)}}
}

// TestSpecialistsArePromptedInPriorityOrder: HIGH specialists come first in
// the catalogue and in the prompt; disabled ones are listed but not offered.
func TestSpecialistsArePromptedInPriorityOrder(t *testing.T) {
	reg, err := core.NewRegistry(stub("zeta_low", core.PriorityLow, true), stub("beta_medium", core.PriorityMedium, true),
		stub("alpha_off", core.PriorityHigh, false), stub("omega_high", core.PriorityHigh, true))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, info := range reg.Infos() {
		names = append(names, info.Name)
	}
	if got := strings.Join(names, ","); got != "alpha_off,omega_high,beta_medium,zeta_low" {
		t.Fatalf("catalogue order %s", got)
	}
	_, db := newService(t)
	svc := core.New(core.Deps{Store: db, Embedder: embed.Hash{}, Specialists: reg}, core.DefaultOptions())
	defer svc.Close()
	p, err := svc.DebugPrompt(context.Background(), core.ChatRequest{Prompt: "hi"})
	if err != nil {
		t.Fatal(err)
	}
	sys := p.Messages[0].Content
	hi, med, low := strings.Index(sys, "omega_high"), strings.Index(sys, "beta_medium"), strings.Index(sys, "zeta_low")
	if hi < 0 || !(hi < med && med < low) {
		t.Fatalf("prompt order high=%d medium=%d low=%d:\n%s", hi, med, low, sys)
	}
	if strings.Contains(sys, "alpha_off") {
		t.Fatal("a disabled specialist was offered to the model")
	}
}
