package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/sakemcp/sake-go/sake"
)

// Quickstart is a small MCP server: a greeter, a unit converter and a
// clock, a resource describing the server, and a prompt.
type Quickstart struct {
	// Now returns the current time; tests replace it.
	Now func() time.Time
}

// Declare describes the methods beyond what reflection sees.
func (q *Quickstart) Declare(d *sake.Declarations) {
	d.Tool("Greet").
		Description("Greets someone by name, in English, Portuguese or Japanese.").
		ReadOnly()
	d.Tool("ConvertTemperature").
		Title("Temperature converter").
		Description("Converts a temperature between Celsius, Fahrenheit and Kelvin.").
		ReadOnly().Idempotent().OpenWorld(false)
	d.Tool("CurrentTime").
		Description("Tells the current time in an IANA time zone such as Europe/Lisbon.").
		ReadOnly()
	d.Resource("About", "quickstart://about").
		Title("About this server").
		Description("What this server offers.").
		MIMEType("text/markdown")
	d.Prompt("Welcome").
		Description("Writes a welcome message for a new team member.").
		Complete("team", "TeamNames")
}

// GreetArgs are the arguments of greet.
type GreetArgs struct {
	Name     string `json:"name" jsonschema:"description=Who to greet,minLength=1"`
	Language string `json:"language,omitempty" jsonschema:"description=Language of the greeting,enum=en,enum=pt,enum=ja,default=en"`
}

// Greet greets someone.
func (q *Quickstart) Greet(ctx *sake.Context, a GreetArgs) (string, error) {
	switch a.Language {
	case "pt":
		return "Olá, " + a.Name + "!", nil
	case "ja":
		return "こんにちは、" + a.Name + "さん!", nil
	}
	return "Hello, " + a.Name + "!", nil
}

// ConvertArgs are the arguments of convert_temperature.
type ConvertArgs struct {
	Value float64 `json:"value" jsonschema:"description=The temperature to convert"`
	From  string  `json:"from" jsonschema:"enum=celsius,enum=fahrenheit,enum=kelvin"`
	To    string  `json:"to" jsonschema:"enum=celsius,enum=fahrenheit,enum=kelvin"`
}

// Temperature is the converted value, returned as structured content.
type Temperature struct {
	Value float64 `json:"value"`
	Unit  string  `json:"unit"`
}

// ConvertTemperature converts between temperature scales.
func (q *Quickstart) ConvertTemperature(ctx *sake.Context, a ConvertArgs) (Temperature, error) {
	var kelvin float64
	switch a.From {
	case "celsius":
		kelvin = a.Value + 273.15
	case "fahrenheit":
		kelvin = (a.Value-32)*5/9 + 273.15
	default:
		kelvin = a.Value
	}
	if kelvin < 0 {
		return Temperature{}, fmt.Errorf("%v %s is below absolute zero", a.Value, a.From)
	}
	out := kelvin
	switch a.To {
	case "celsius":
		out = kelvin - 273.15
	case "fahrenheit":
		out = (kelvin-273.15)*9/5 + 32
	}
	return Temperature{Value: round2(out), Unit: a.To}, nil
}

func round2(f float64) float64 {
	if f < 0 {
		return -round2(-f)
	}
	return float64(int64(f*100+0.5)) / 100
}

// TimeArgs are the arguments of current_time.
type TimeArgs struct {
	Zone string `json:"zone" jsonschema:"description=IANA time zone,example=Europe/Lisbon"`
}

// CurrentTime tells the time in a zone.
func (q *Quickstart) CurrentTime(ctx *sake.Context, a TimeArgs) (string, error) {
	loc, err := time.LoadLocation(a.Zone)
	if err != nil {
		return "", fmt.Errorf("unknown time zone %q: use an IANA name such as Europe/Lisbon", a.Zone)
	}
	now := time.Now
	if q.Now != nil {
		now = q.Now
	}
	return now().In(loc).Format("Monday 2 January 2006, 15:04 MST"), nil
}

// About describes the server.
func (q *Quickstart) About(ctx *sake.Context) (string, error) {
	return "# Quickstart\n\nTools: greet, convert_temperature, current_time.\nPrompt: welcome.\n", nil
}

// WelcomeArgs are the arguments of the welcome prompt.
type WelcomeArgs struct {
	Name string `json:"name" jsonschema:"description=The new team member"`
	Team string `json:"team" jsonschema:"description=The team they join"`
}

// Welcome is a prompt for a welcome message.
func (q *Quickstart) Welcome(ctx *sake.Context, a WelcomeArgs) (string, error) {
	return fmt.Sprintf("Write a short, warm welcome message for %s, who joins the %s team today.", a.Name, a.Team), nil
}

var teams = []string{"design", "engineering", "finance", "marketing", "support"}

// TeamNames completes the team argument of welcome.
func (q *Quickstart) TeamNames(ctx *sake.Context, r sake.CompleteRequest) ([]string, error) {
	var out []string
	for _, t := range teams {
		if strings.HasPrefix(t, strings.ToLower(r.Value)) {
			out = append(out, t)
		}
	}
	return out, nil
}
