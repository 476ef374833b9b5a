package main

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/protocol"
	"github.com/sakemcp/sake-go/sake/saketest"
)

func TestGreet(t *testing.T) {
	saketest.BothEras(t, func(t *testing.T, opts ...saketest.Option) {
		c := saketest.Connect(t, &Quickstart{}, opts...)
		for lang, want := range map[string]string{"": "Hello, Rui!", "pt": "Olá, Rui!", "ja": "こんにちは、Ruiさん!"} {
			args := map[string]any{"name": "Rui"}
			if lang != "" {
				args["language"] = lang
			}
			res, err := c.CallTool("greet", args)
			if err != nil || res.Text() != want {
				t.Errorf("greet %q = %v, %v; want %q", lang, res, err, want)
			}
		}
		// Negatives: a missing name and an unknown language are refused
		// with a message naming the field.
		var te *sake.ToolError
		if _, err := c.CallTool("greet", map[string]any{}); !errors.As(err, &te) || !contains(te.Error(), "name: is required") {
			t.Errorf("no name: %v", err)
		}
		if _, err := c.CallTool("greet", map[string]any{"name": "Rui", "language": "fr"}); !errors.As(err, &te) || !contains(te.Error(), "language") {
			t.Errorf("unknown language: %v", err)
		}
	})
}

func TestConvertTemperature(t *testing.T) {
	saketest.BothEras(t, func(t *testing.T, opts ...saketest.Option) {
		c := saketest.Connect(t, &Quickstart{}, opts...)
		res, err := c.CallTool("convert_temperature", map[string]any{"value": 100, "from": "celsius", "to": "fahrenheit"})
		if err != nil {
			t.Fatal(err)
		}
		var got Temperature
		if err := res.DecodeStructured(&got); err != nil || got != (Temperature{Value: 212, Unit: "fahrenheit"}) {
			t.Errorf("100 °C = %+v, %v", got, err)
		}
		var te *sake.ToolError
		if _, err := c.CallTool("convert_temperature", map[string]any{"value": -500, "from": "celsius", "to": "kelvin"}); !errors.As(err, &te) || !contains(te.Error(), "absolute zero") {
			t.Errorf("below absolute zero: %v", err)
		}
		if _, err := c.CallTool("convert_temperature", map[string]any{"value": "hot", "from": "celsius", "to": "kelvin"}); !errors.As(err, &te) || !contains(te.Error(), "value") {
			t.Errorf("not a number: %v", err)
		}
	})
}

func TestCurrentTime(t *testing.T) {
	saketest.BothEras(t, func(t *testing.T, opts ...saketest.Option) {
		fixed := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
		c := saketest.Connect(t, &Quickstart{Now: func() time.Time { return fixed }}, opts...)
		res, err := c.CallTool("current_time", map[string]any{"zone": "Asia/Tokyo"})
		if err != nil || res.Text() != "Monday 30 November 2026, 21:00 JST" {
			t.Errorf("Tokyo = %v, %v", res, err)
		}
		var te *sake.ToolError
		if _, err := c.CallTool("current_time", map[string]any{"zone": "Mars/Olympus"}); !errors.As(err, &te) {
			t.Errorf("unknown zone: %v", err)
		}
	})
}

func TestResourceAndPrompt(t *testing.T) {
	saketest.BothEras(t, func(t *testing.T, opts ...saketest.Option) {
		c := saketest.Connect(t, &Quickstart{}, opts...)
		contents, err := c.ReadResource("quickstart://about")
		if err != nil || len(contents) != 1 || contents[0].MIMEType != "text/markdown" || !contains(contents[0].Text, "current_time") {
			t.Fatalf("about = %+v, %v", contents, err)
		}
		p, err := c.GetPrompt("welcome", map[string]string{"name": "Ana", "team": "support"})
		if err != nil || !contains(p.Text(), "Ana") || !contains(p.Text(), "support team") {
			t.Fatalf("welcome = %+v, %v", p, err)
		}
		var e *sake.Error
		if _, err := c.GetPrompt("welcome", map[string]string{"name": "Ana"}); !errors.As(err, &e) || e.Code != sake.CodeInvalidParams {
			t.Errorf("missing team: %v", err)
		}
		got, err := c.Complete(protocol.PromptRef("welcome"), "team", "s", nil)
		if err != nil || len(got.Values) != 1 || got.Values[0] != "support" {
			t.Errorf("complete team = %+v, %v", got, err)
		}
	})
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }
