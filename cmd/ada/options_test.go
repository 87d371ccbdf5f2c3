package main

import (
	"reflect"
	"testing"

	"github.com/ada-chat/ada/config"
	"github.com/ada-chat/ada/core"
)

// The settings' documented defaults (config, .env.example) and core's own
// defaults (used by its tests and by embedders of the package) are written
// in two places; this keeps them the same. The bridge has no defaults of its
// own (bot.OptionsFrom).
func TestSettingDefaultsAreThePackageDefaults(t *testing.T) {
	cfg, err := config.Load(func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	if got, want := coreOptions(cfg), core.DefaultOptions(); !reflect.DeepEqual(got, want) {
		t.Errorf("core options from the default settings:\n got %+v\nwant %+v (core.DefaultOptions)", got, want)
	}
}
