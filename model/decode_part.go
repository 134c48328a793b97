package model

import (
	"fmt"
	"strings"
)

// Decoding a part: its type, the fields each type has, and the checks of
// each type's required fields.

// The fields of a part, and of an event (which is a part or has a few
// fields of its own).
const (
	pType uint32 = 1 << iota
	pText
	pMediaType
	pData
	pFilename
	pToolCallID
	pToolName
	pInput
	pProviderExecuted
	pOutput
	pApprovalID
	pApproved
	pReason
	pSignature
	pIsAutomatic
	pProviderOptions
	pFinishReason // events only
	pCode         // events only
	pMessage      // events only
	pEditedInput
)

// partField returns a key's field; the events' own fields only in events.
func partField(k []byte, events bool) uint32 {
	switch string(k) {
	case "type":
		return pType
	case "text":
		return pText
	case "mediaType":
		return pMediaType
	case "data":
		return pData
	case "filename":
		return pFilename
	case "toolCallId":
		return pToolCallID
	case "toolName":
		return pToolName
	case "input":
		return pInput
	case "providerExecuted":
		return pProviderExecuted
	case "output":
		return pOutput
	case "approvalId":
		return pApprovalID
	case "approved":
		return pApproved
	case "reason":
		return pReason
	case "signature":
		return pSignature
	case "isAutomatic":
		return pIsAutomatic
	case "providerOptions":
		return pProviderOptions
	case "editedInput":
		return pEditedInput
	}
	if events {
		switch string(k) {
		case "finishReason":
			return pFinishReason
		case "code":
			return pCode
		case "message":
			return pMessage
		}
	}
	return 0
}

// partFields lists each part type's fields, in the order errors name them.
var partFields = map[PartType][]string{
	PartText:                 {"type", "text", "providerOptions"},
	PartReasoning:            {"type", "text", "providerOptions"},
	PartFile:                 {"type", "mediaType", "data", "filename", "providerOptions"},
	PartToolCall:             {"type", "toolCallId", "toolName", "input", "providerExecuted", "providerOptions"},
	PartToolResult:           {"type", "toolCallId", "toolName", "output", "providerExecuted", "providerOptions"},
	PartToolApprovalRequest:  {"type", "approvalId", "toolCallId", "signature", "reason", "isAutomatic", "providerOptions"},
	PartToolApprovalResponse: {"type", "approvalId", "approved", "reason", "editedInput", "providerExecuted", "providerOptions"},
}

// partInfo is a part type's fields as a mask and as the list errors give.
type partInfo struct {
	mask uint32
	list string
}

var partInfos = func() [len(partTypes)]partInfo {
	var infos [len(partTypes)]partInfo
	for i, t := range partTypes {
		var mask uint32
		for _, n := range partFields[t] {
			mask |= partField([]byte(n), false)
		}
		infos[i] = partInfo{mask: mask, list: strings.Join(partFields[t], ", ")}
	}
	return infos
}()

var partTypes = [...]PartType{PartText, PartReasoning, PartFile, PartToolCall, PartToolResult, PartToolApprovalRequest, PartToolApprovalResponse}

// infoOf returns a part type's fields, and false for an unknown type.
func infoOf(t PartType) (partInfo, bool) {
	for i, known := range partTypes {
		if t == known {
			return partInfos[i], true
		}
	}
	return partInfo{}, false
}

func knownPartTypes() string {
	return "text, reasoning, file, tool-call, tool-result, tool-approval-request, tool-approval-response"
}

// eventText holds an event's own fields.
type eventText struct {
	finishReason, code, message string
}

// partWalk reads a part (or, with ev, an event) object. The error is the
// object's own: not an object, a duplicate key, or the syntax.
func (d *decoder) partWalk(l loc, ev *eventText) (Part, fields, error) {
	var p Part
	fs := fields{start: d.pos}
	if d.peek() != '{' {
		return p, fs, d.notObject(l)
	}
	if !d.openObject() {
		return p, fs, errSyntax
	}
	events := ev != nil
	for first := true; ; first = false {
		name, at, plain, done, ok := d.key(first)
		if !ok {
			return p, fs, errSyntax
		}
		if done {
			break
		}
		bit := partField(keyBytes(name, plain), events)
		if bit == 0 {
			d.unknownKey(&fs, name, plain, at, l)
			if err := d.skip(); err != nil {
				return p, fs, err
			}
			continue
		}
		if !fs.see(bit, name, plain, l) {
			if err := d.skip(); err != nil {
				return p, fs, err
			}
			continue
		}
		var err error
		switch bit {
		case pProviderExecuted:
			p.ProviderExecuted, err = d.boolean(&fs, bit)
		case pApproved:
			p.Approved, err = d.boolean(&fs, bit)
		case pIsAutomatic:
			p.IsAutomatic, err = d.boolean(&fs, bit)
		case pInput:
			p.Input, err = d.any()
		case pEditedInput:
			p.EditedInput, err = d.any()
		case pProviderOptions:
			p.ProviderOptions, err = d.object(&fs, bit)
		case pOutput:
			if d.peek() != '{' {
				fs.bad |= bit
				err = d.skip()
				break
			}
			ol := l
			ol.out = true
			var oerr error
			p.Output, oerr = d.output(ol)
			if oerr == errSyntax {
				return p, fs, oerr
			}
			if oerr != nil && fs.nested == nil {
				fs.nested = oerr
			}
		default:
			var s string
			s, err = d.stringField(&fs, bit)
			switch bit {
			case pType:
				p.Type = PartType(s)
			case pText:
				p.Text = s
			case pMediaType:
				p.MediaType = s
			case pData:
				p.Data = s
			case pFilename:
				p.Filename = s
			case pToolCallID:
				p.ToolCallID = s
			case pToolName:
				p.ToolName = s
			case pApprovalID:
				p.ApprovalID = s
			case pReason:
				p.Reason = s
			case pSignature:
				p.Signature = s
			case pFinishReason:
				ev.finishReason = s
			case pCode:
				ev.code = s
			case pMessage:
				ev.message = s
			}
		}
		if err != nil {
			return p, fs, err
		}
	}
	return p, fs, fs.err
}

// checkPartType checks a part's type field.
func (d *decoder) checkPartType(fs *fields, typ PartType, l loc) error {
	return d.checkString(fs, pType, "type", string(typ), true, l)
}

// checkPart runs a part's checks after its type's, then its output's.
func (d *decoder) checkPart(p *Part, fs *fields, l loc) error {
	info, known := infoOf(p.Type)
	if !known {
		return l.fail("type", fmt.Sprintf("unknown part type %q (want one of %s)", p.Type, knownPartTypes()))
	}
	allowed := func(k string) bool { return partField([]byte(k), false)&info.mask != 0 }
	if err := d.only(fs, info.mask, allowed, info.list, l); err != nil {
		return err
	}
	if err := d.checkObject(fs, pProviderOptions, "providerOptions", l); err != nil {
		return err
	}
	var errs [5]error
	switch p.Type {
	case PartText, PartReasoning:
		errs[0] = d.checkPresentString(fs, pText, "text", l)
	case PartFile:
		errs[0] = d.checkString(fs, pMediaType, "mediaType", p.MediaType, true, l)
		errs[1] = d.checkPresentString(fs, pData, "data", l)
		errs[2] = d.checkString(fs, pFilename, "filename", p.Filename, false, l)
	case PartToolCall:
		errs[0] = d.checkString(fs, pToolCallID, "toolCallId", p.ToolCallID, true, l)
		errs[1] = d.checkString(fs, pToolName, "toolName", p.ToolName, true, l)
		if !fs.has(pInput) {
			errs[2] = l.fail("input", "missing field")
		}
		errs[3] = d.checkBool(fs, pProviderExecuted, "providerExecuted", false, l)
	case PartToolResult:
		errs[0] = d.checkString(fs, pToolCallID, "toolCallId", p.ToolCallID, true, l)
		errs[1] = d.checkString(fs, pToolName, "toolName", p.ToolName, true, l)
		errs[2] = d.checkBool(fs, pProviderExecuted, "providerExecuted", false, l)
		switch {
		case !fs.has(pOutput):
			errs[3] = l.fail("output", "missing field")
		case fs.bad&pOutput != 0:
			ol := l
			ol.out = true
			errs[3] = ol.here("want an object, got " + describe(d.valueOf(fs.start, "output")))
		default:
			errs[3] = fs.nested
		}
	case PartToolApprovalRequest:
		errs[0] = d.checkString(fs, pApprovalID, "approvalId", p.ApprovalID, true, l)
		errs[1] = d.checkString(fs, pToolCallID, "toolCallId", p.ToolCallID, true, l)
		errs[2] = d.checkString(fs, pSignature, "signature", p.Signature, false, l)
		errs[3] = d.checkString(fs, pReason, "reason", p.Reason, false, l)
		errs[4] = d.checkBool(fs, pIsAutomatic, "isAutomatic", false, l)
	case PartToolApprovalResponse:
		errs[0] = d.checkString(fs, pApprovalID, "approvalId", p.ApprovalID, true, l)
		errs[1] = d.checkBool(fs, pApproved, "approved", true, l)
		errs[2] = d.checkString(fs, pReason, "reason", p.Reason, false, l)
		errs[3] = d.checkBool(fs, pProviderExecuted, "providerExecuted", false, l)
	}
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// lonePart decodes a part outside a message (no role to check).
func (d *decoder) lonePart(l loc) (Part, error) { return d.partIn(l, "") }

// Tool outputs.
