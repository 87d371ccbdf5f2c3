package main

import (
	"reflect"
	"testing"

	"github.com/ada-chat/ada/bot"
	"github.com/ada-chat/ada/config"
	"github.com/ada-chat/ada/core"
)

// The settings' documented defaults (config, .env.example) and the packages'
// own defaults (used by their tests and by embedders of the packages) are
// written in two places; this keeps them the same.
func TestSettingDefaultsAreThePackageDefaults(t *testing.T) {
	cfg, err := config.Load(func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	gotBot := botOptions(cfg, "")
	gotBot.DataDir = "" // a path of this machine, not a bridge default
	for _, list := range []*[]string{&gotBot.AllowedRooms, &gotBot.NeverJoinRooms, &gotBot.AllowedUsers} {
		if len(*list) == 0 {
			*list = nil // an empty setting parses to an empty list: the same "any"
		}
	}
	if want := bot.DefaultOptions(); !reflect.DeepEqual(gotBot, want) {
		t.Errorf("bridge options from the default settings:\n got %+v\nwant %+v (bot.DefaultOptions)", gotBot, want)
	}
	if got, want := coreOptions(cfg), core.DefaultOptions(); !reflect.DeepEqual(got, want) {
		t.Errorf("core options from the default settings:\n got %+v\nwant %+v (core.DefaultOptions)", got, want)
	}
}
