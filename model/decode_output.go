package model

import (
	"fmt"
)

// Decoding a tool result's output: its type and value.

// newOutput returns a zero output cut from a slab.
func (d *decoder) newOutput() *ToolOutput {
	if len(d.outputs) == 0 {
		size := 1 + (len(d.data)-d.pos)/512
		if size > 128 {
			size = 128
		}
		d.outputs = make([]ToolOutput, size)
	}
	o := &d.outputs[0]
	d.outputs = d.outputs[1:]
	return o
}

// Parts.

// The fields of a tool output.
const (
	oType uint32 = 1 << iota
	oValue
	oReason
	oProviderOptions
)

func outputField(k []byte) uint32 {
	switch string(k) {
	case "type":
		return oType
	case "value":
		return oValue
	case "reason":
		return oReason
	case "providerOptions":
		return oProviderOptions
	}
	return 0
}

// output reads a tool output (at its '{') and checks it.
func (d *decoder) output(l loc) (*ToolOutput, error) {
	o := d.newOutput()
	fs := fields{start: d.pos}
	if !d.openObject() {
		return nil, errSyntax
	}
	for first := true; ; first = false {
		name, at, plain, done, ok := d.key(first)
		if !ok {
			return nil, errSyntax
		}
		if done {
			break
		}
		bit := outputField(keyBytes(name, plain))
		if bit == 0 {
			d.unknownKey(&fs, name, plain, at, l)
			if err := d.skip(); err != nil {
				return nil, err
			}
			continue
		}
		if !fs.see(bit, name, plain, l) {
			if err := d.skip(); err != nil {
				return nil, err
			}
			continue
		}
		var err error
		switch bit {
		case oType:
			var s string
			s, err = d.stringField(&fs, bit)
			o.Type = OutputType(s)
		case oValue:
			o.Value, err = d.any()
		case oReason:
			o.Reason, err = d.stringField(&fs, bit)
		case oProviderOptions:
			o.ProviderOptions, err = d.object(&fs, bit)
		}
		if err != nil {
			return nil, err
		}
	}
	if err := d.checkOutput(o, &fs, l); err != nil {
		return nil, err
	}
	return o, nil
}

func (d *decoder) checkOutput(o *ToolOutput, fs *fields, l loc) error {
	if fs.err != nil {
		return fs.err
	}
	if err := d.checkString(fs, oType, "type", string(o.Type), true, l); err != nil {
		return err
	}
	allowed := func(mask uint32) func(string) bool {
		return func(k string) bool { return outputField([]byte(k))&mask != 0 }
	}
	switch o.Type {
	case OutputJSON, OutputErrorJSON, OutputText, OutputErrorText:
		mask := oType | oValue | oProviderOptions
		if err := d.only(fs, mask, allowed(mask), "type, value, providerOptions", l); err != nil {
			return err
		}
		if !fs.has(oValue) {
			return l.fail("value", "missing field")
		}
		if (o.Type == OutputText || o.Type == OutputErrorText) && o.Value[0] != '"' {
			return l.fail("value", fmt.Sprintf("want a string for a %s output, got %s", o.Type, jsonKind(o.Value)))
		}
	case OutputExecutionDenied:
		mask := oType | oReason | oProviderOptions
		if err := d.only(fs, mask, allowed(mask), "type, reason, providerOptions", l); err != nil {
			return err
		}
		if err := d.checkString(fs, oReason, "reason", o.Reason, false, l); err != nil {
			return err
		}
	default:
		return l.fail("type", fmt.Sprintf("unknown output type %q (want json, text, error-text, error-json or execution-denied)", o.Type))
	}
	return d.checkObject(fs, oProviderOptions, "providerOptions", l)
}

// Events.
