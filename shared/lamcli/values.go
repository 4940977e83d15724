package lamcli

import (
	"fmt"
	"strings"

	"github.com/alecthomas/kong"
	"github.com/lamgo/lam/shared/ssi"
)

// SSIArgs collects repeated "-ssi key value" options in order. Put it in a
// tool's grammar as
//
//	SSI lamcli.SSIArgs `name:"ssi" help:"Set an SSI parameter."`
type SSIArgs []ssi.Arg

// Decode implements kong.MapperValue for the rewritten form --ssi=key=value.
func (a *SSIArgs) Decode(ctx *kong.DecodeContext) error {
	tok, err := ctx.Scan.PopValue("ssi")
	if err != nil {
		return err
	}
	s := fmt.Sprint(tok.Value)
	k, v, ok := strings.Cut(s, "=")
	if !ok || k == "" {
		return fmt.Errorf("-ssi needs a key and a value, got %q", s)
	}
	*a = append(*a, ssi.Arg{Key: k, Value: v})
	return nil
}

// Pair is an option with two values, such as laminfo's -param rpi tcp.
type Pair struct{ A, B string }

// Pairs collects a repeated two-value option in order.
type Pairs []Pair

// Decode implements kong.MapperValue for the rewritten form --name=a=b.
func (p *Pairs) Decode(ctx *kong.DecodeContext) error {
	tok, err := ctx.Scan.PopValue("pair")
	if err != nil {
		return err
	}
	s := fmt.Sprint(tok.Value)
	a, b, ok := strings.Cut(s, "=")
	if !ok {
		return fmt.Errorf("option --%s needs two values, got %q", ctx.Value.Name, s)
	}
	*p = append(*p, Pair{a, b})
	return nil
}

// ssiCarrier is implemented by grammars that embed SSIOption.
type ssiCarrier interface{ ssiArgs() []ssi.Arg }

// SSIOption is the -ssi option, for embedding in a tool's grammar:
//
//	lamcli.SSIOption `embed:""`
type SSIOption struct {
	SSI SSIArgs `name:"ssi" placeholder:"KEY=VALUE" help:"Set an SSI parameter (-ssi key value)."`
}

func (o *SSIOption) ssiArgs() []ssi.Arg { return o.SSI }
