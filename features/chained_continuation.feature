@client
Feature: Chained continuation
  The UI side of tool approval. A chat client shows approval
  requests as they stream in, sends exactly one continuation request once
  every tool call of the last assistant message is complete, acts on an
  answer given while a stream is still running, and never leaves a call
  dangling. The harness plays the chat server: it scripts each response, can
  hold a stream open while the user acts, and journals every request. Every
  assertion names, in brackets, the check whose rule it tests.

  @CHAIN-01 @CHAIN-04 @REQ-07
  Scenario Outline: the client continues once, when every call of the step is answered (<protocol>)
    Given the client speaks "<protocol>"
    And the client knows a tool "deleteFile" that needs approval
    And the chat server answers with:
      | event    | call   | tool       | input         |
      | call     | call_A | deleteFile | {"path":"/a"} |
      | approval | call_A | deleteFile | {"path":"/a"} |
      | call     | call_B | deleteFile | {"path":"/b"} |
      | approval | call_B | deleteFile | {"path":"/b"} |
    When the user sends "delete a and b" in the client
    Then [REQ-07] the client shows an approval request for "call_A"
    And [REQ-07] the client shows an approval request for "call_B"
    When the user approves "call_A" in the client
    Then [CHAIN-01] the client made 1 request
    Given the chat server answers with:
      | event  | call   | tool       | text               |
      | result | call_A | deleteFile |                    |
      | denied | call_B | deleteFile |                    |
      | text   |        |            | Deleted a, kept b. |
    When the user denies "call_B" in the client because "keep b"
    Then [CHAIN-01] the client made 2 requests
    And [CHAIN-01] request 2 carries the approval of "call_A"
    And [CHAIN-01] request 2 carries the denial of "call_B" with the reason "keep b"
    And the tool call "call_A" went through awaiting-input, input-streaming, input-complete, approval-requested, approval-responded and output-available
    And the tool call "call_B" went through approval-requested, approval-responded and output-denied
    And every tool call's state moved forward only

    Examples:
      | protocol          |
      | ag-ui             |
      | ag-ui-legacy      |
      | ui-message-stream |

  @CHAIN-01 @REQ-07
  Scenario Outline: the client continues once when the calls are answered last first, after text (<protocol>)
    Given the client speaks "<protocol>"
    And the client knows a tool "deleteFile" that needs approval
    And the chat server answers with:
      | event    | call   | tool       | input         | text                       |
      | text     |        |            |               | I will delete a, then b.   |
      | call     | call_A | deleteFile | {"path":"/a"} |                            |
      | approval | call_A | deleteFile | {"path":"/a"} |                            |
      | call     | call_B | deleteFile | {"path":"/b"} |                            |
      | approval | call_B | deleteFile | {"path":"/b"} |                            |
    When the user sends "delete a and b" in the client
    Then [REQ-07] the client shows an approval request for "call_A"
    And [REQ-07] the client shows an approval request for "call_B"
    When the user approves "call_B" in the client
    Then [CHAIN-01] the client made 1 request
    Given the chat server answers with:
      | event  | call   | tool       | text              |
      | result | call_A | deleteFile |                   |
      | result | call_B | deleteFile |                   |
      | text   |        |            | Deleted a and b.  |
    When the user approves "call_A" in the client
    Then [CHAIN-01] the client made 2 requests
    And [CHAIN-01] request 2 carries the approval of "call_A"
    And [CHAIN-01] request 2 carries the approval of "call_B"

    Examples:
      | protocol          |
      | ag-ui             |
      | ag-ui-legacy      |
      | ui-message-stream |

  @CHAIN-01 @REQ-07
  Scenario Outline: the client does not continue while a call waits for its client-side output (<protocol>)
    Given the client speaks "<protocol>"
    And the client knows a tool "deleteFile" that needs approval
    And the client runs a tool "pickColor" itself
    And the chat server answers with:
      | event    | call   | tool       | input         |
      | call     | call_A | deleteFile | {"path":"/a"} |
      | approval | call_A | deleteFile | {"path":"/a"} |
      | call     | call_C | pickColor  | {}            |
    When the user sends "delete a and pick a colour" in the client
    Then [REQ-07] the client shows an approval request for "call_A"
    When the user approves "call_A" in the client
    Then [CHAIN-01] the client made 1 request
    Given the chat server answers with the text "Deleted a; red it is."
    When the client's tool returns {"color":"red"} for "call_C"
    Then [CHAIN-01] the client made 2 requests
    And [CHAIN-01] request 2 carries the approval of "call_A"

    Examples:
      | protocol          |
      | ag-ui-legacy      |
      | ui-message-stream |

  @CHAIN-01 @REQ-07
  Scenario Outline: the client does not continue while a client-side call before the approval waits for its output (<protocol>)
    Given the client speaks "<protocol>"
    And the client knows a tool "deleteFile" that needs approval
    And the client runs a tool "pickColor" itself
    And the chat server answers with:
      | event    | call   | tool       | input         |
      | call     | call_C | pickColor  | {}            |
      | call     | call_A | deleteFile | {"path":"/a"} |
      | approval | call_A | deleteFile | {"path":"/a"} |
    When the user sends "pick a colour and delete a" in the client
    Then [REQ-07] the client shows an approval request for "call_A"
    When the user approves "call_A" in the client
    Then [CHAIN-01] the client made 1 request
    Given the chat server answers with the text "Red it is; deleted a."
    When the client's tool returns {"color":"red"} for "call_C"
    Then [CHAIN-01] the client made 2 requests
    And [CHAIN-01] request 2 carries the approval of "call_A"

    Examples:
      | protocol          |
      | ag-ui-legacy      |
      | ui-message-stream |

  @CHAIN-01 @REQ-07
  Scenario Outline: the client continues once when the server starts every answer with a new message id (<protocol>)
    Given the client speaks "<protocol>"
    And the client knows a tool "deleteFile" that needs approval
    And the chat server starts every answer with a new message id
    And the chat server answers with:
      | event    | call   | tool       | input         |
      | call     | call_A | deleteFile | {"path":"/a"} |
      | approval | call_A | deleteFile | {"path":"/a"} |
    When the user sends "delete a" in the client
    Then [REQ-07] the client shows an approval request for "call_A"
    Given the chat server answers with the text "Deleted a."
    When the user approves "call_A" in the client
    Then [CHAIN-01] the client made 2 requests
    And [CHAIN-01] request 2 carries the approval of "call_A"

    Examples:
      | protocol          |
      | ui-message-stream |

  @CHAIN-01 @REQ-07
  Scenario Outline: the client continues after a response that starts with a tool call and names no message (<protocol>)
    Given the client speaks "<protocol>"
    And the client knows a tool "deleteFile" that needs approval
    And the chat server starts its answers without a message id
    And the chat server answers with:
      | event    | call   | tool       | input         |
      | call     | call_A | deleteFile | {"path":"/a"} |
      | approval | call_A | deleteFile | {"path":"/a"} |
    When the user sends "delete a" in the client
    Then [REQ-07] the client shows an approval request for "call_A"
    Given the chat server answers with the text "Deleted a."
    When the user approves "call_A" in the client
    Then [CHAIN-01] the client made 2 requests
    And [CHAIN-01] request 2 carries the approval of "call_A"

    # An AG-UI server of the kit's default dialects names the message of
    # every tool call (parentMessageId); the UI message stream's start chunk
    # and TanStack AI's tool calls before 0.13 may name none.
    Examples:
      | protocol          |
      | ag-ui-legacy      |
      | ui-message-stream |

  @REQ-07 @CHAIN-01
  Scenario Outline: the client shows an approval after the assistant's text streamed in pieces (<protocol>)
    Given the client speaks "<protocol>"
    And the client knows a tool "deleteFile" that needs approval
    And the chat server answers with:
      | event    | call   | tool       | input         | text        |
      | text     |        |            |               | I will      |
      | text     |        |            |               | delete a,   |
      | text     |        |            |               | once asked. |
      | call     | call_A | deleteFile | {"path":"/a"} |             |
      | approval | call_A | deleteFile | {"path":"/a"} |             |
    When the user sends "delete a" in the client
    Then [REQ-07] the client shows an approval request for "call_A"
    Given the chat server answers with the text "Deleted a."
    When the user approves "call_A" in the client
    Then [CHAIN-01] the client made 2 requests
    And [CHAIN-01] request 2 carries the approval of "call_A"

    Examples:
      | protocol          |
      | ag-ui             |
      | ag-ui-legacy      |
      | ui-message-stream |

  @CHAIN-02 @CHAIN-01 @REQ-07
  Scenario Outline: an approval given while the first response is still streaming is acted on when it ends (<protocol>)
    Given the client speaks "<protocol>"
    And the client knows a tool "deleteFile" that needs approval
    And the chat server answers with the following, holding the stream open:
      | event    | call   | tool       | input         |
      | call     | call_A | deleteFile | {"path":"/a"} |
      | approval | call_A | deleteFile | {"path":"/a"} |
    When the user sends "delete a" in the client
    Then [REQ-07] the client shows an approval request for "call_A"
    When the user approves "call_A" in the client
    Then [CHAIN-01] the client made 1 request
    Given the chat server answers with the text "Deleted a."
    When the chat server ends the held stream
    Then [CHAIN-02] the client made 2 requests
    And [CHAIN-02] request 2 carries the approval of "call_A"

    Examples:
      | protocol          |
      | ag-ui-legacy      |
      | ui-message-stream |

  @CHAIN-02 @CHAIN-01 @REQ-07
  Scenario Outline: an approval given while the continuation stream is open is acted on when it ends (<protocol>)
    Given the client speaks "<protocol>"
    And the client knows a tool "deleteFile" that needs approval
    And the chat server answers with:
      | event    | call   | tool       | input         |
      | call     | call_A | deleteFile | {"path":"/a"} |
      | approval | call_A | deleteFile | {"path":"/a"} |
    When the user sends "delete a, then b" in the client
    Then [REQ-07] the client shows an approval request for "call_A"
    Given the chat server answers with the following, holding the stream open:
      | event    | call   | tool       | input         |
      | result   | call_A | deleteFile |               |
      | call     | call_B | deleteFile | {"path":"/b"} |
      | approval | call_B | deleteFile | {"path":"/b"} |
    When the user approves "call_A" in the client
    Then [REQ-07] the client shows an approval request for "call_B"
    When the user approves "call_B" in the client
    Then [CHAIN-01] the client made 2 requests
    Given the chat server answers with the text "Deleted a and b."
    When the chat server ends the held stream
    Then [CHAIN-02] the client made 3 requests
    And [CHAIN-02] request 3 carries the approval of "call_B"

    Examples:
      | protocol          |
      | ag-ui-legacy      |
      | ui-message-stream |

  @CHAIN-02 @CHAIN-01 @REQ-07
  Scenario Outline: an approval given before the finished continuation's response ends is acted on (<protocol>)
    Given the client speaks "<protocol>"
    And the client knows a tool "deleteFile" that needs approval
    And the chat server answers with:
      | event    | call   | tool       | input         |
      | call     | call_A | deleteFile | {"path":"/a"} |
      | approval | call_A | deleteFile | {"path":"/a"} |
    When the user sends "delete a, then b" in the client
    Then [REQ-07] the client shows an approval request for "call_A"
    Given the chat server answers with the following, holding the stream open after the run finishes:
      | event    | call   | tool       | input         |
      | result   | call_A | deleteFile |               |
      | call     | call_B | deleteFile | {"path":"/b"} |
      | approval | call_B | deleteFile | {"path":"/b"} |
    When the user approves "call_A" in the client
    Then [REQ-07] the client shows an approval request for "call_B"
    Given the chat server answers with the text "Deleted a and b."
    When the user approves "call_B" in the client
    Then [CHAIN-01] the client made 2 requests
    When the chat server ends the held stream
    Then [CHAIN-02] the client made 3 requests
    And [CHAIN-02] request 3 carries the approval of "call_B"

    Examples:
      | protocol |
      | ag-ui    |

  @CHAIN-03 @CHAIN-01 @REQ-07
  Scenario Outline: three chained approvals complete with four requests (<protocol>)
    Given the client speaks "<protocol>"
    And the client knows a tool "deleteFile" that needs approval
    And the chat server answers with:
      | event    | call   | tool       | input         |
      | call     | call_A | deleteFile | {"path":"/a"} |
      | approval | call_A | deleteFile | {"path":"/a"} |
    When the user sends "delete a, b and c, one by one" in the client
    Then [REQ-07] the client shows an approval request for "call_A"
    Given the chat server answers with:
      | event    | call   | tool       | input         |
      | result   | call_A | deleteFile |               |
      | call     | call_B | deleteFile | {"path":"/b"} |
      | approval | call_B | deleteFile | {"path":"/b"} |
    When the user approves "call_A" in the client
    Then [REQ-07] the client shows an approval request for "call_B"
    And [CHAIN-03] the client made 2 requests
    Given the chat server answers with:
      | event    | call   | tool       | input         |
      | result   | call_B | deleteFile |               |
      | call     | call_C | deleteFile | {"path":"/c"} |
      | approval | call_C | deleteFile | {"path":"/c"} |
    When the user approves "call_B" in the client
    Then [REQ-07] the client shows an approval request for "call_C"
    And [CHAIN-03] the client made 3 requests
    Given the chat server answers with the text "Deleted a, b and c."
    When the user approves "call_C" in the client
    Then [CHAIN-03] the client made 4 requests
    And [CHAIN-03] request 4 carries the approval of "call_C"
    And [CHAIN-01] no request resumes an interrupt an earlier request resumed

    Examples:
      | protocol          |
      | ag-ui             |
      | ag-ui-legacy      |
      | ui-message-stream |

  @CHAIN-04 @CHAIN-06 @CHAIN-01 @REQ-07
  Scenario Outline: a continuation that re-sends a call moves nothing backwards and duplicates nothing (<protocol>)
    Given the client speaks "<protocol>"
    And the client knows a tool "deleteFile" that needs approval
    And the chat server answers with:
      | event    | call   | tool       | input         |
      | call     | call_A | deleteFile | {"path":"/a"} |
      | approval | call_A | deleteFile | {"path":"/a"} |
    When the user sends "delete a" in the client
    Then [REQ-07] the client shows an approval request for "call_A"
    Given the chat server answers with:
      | event  | call   | tool       | input         | text        |
      | recall | call_A | deleteFile | {"path":"/a"} |             |
      | result | call_A | deleteFile |               |             |
      | text   |        |            |               | Deleted a.  |
    When the user approves "call_A" in the client
    Then [CHAIN-01] the client made 2 requests
    And every tool call's state moved forward only
    And the client holds each tool call once
    And the tool call "call_A" went through approval-requested, approval-responded and output-available

    # A server of the UI message stream never re-sends a call it streamed
    # (the AI SDK's own server does not): the case is AG-UI's, whose
    # servers do (TanStack AI re-sends an approved call before its result).
    Examples:
      | protocol          |
      | ag-ui             |
      | ag-ui-legacy      |

  @CHAIN-04 @CHAIN-01 @REQ-07
  Scenario Outline: a server that asks again about an answered call moves nothing backwards (<protocol>)
    Given the client speaks "<protocol>"
    And the client knows a tool "deleteFile" that needs approval
    And the chat server answers with:
      | event    | call   | tool       | input         |
      | call     | call_A | deleteFile | {"path":"/a"} |
      | approval | call_A | deleteFile | {"path":"/a"} |
    When the user sends "delete a" in the client
    Then [REQ-07] the client shows an approval request for "call_A"
    Given the chat server answers with:
      | event      | call   | tool       | input         | text       |
      | reapproval | call_A | deleteFile | {"path":"/a"} |            |
      | result     | call_A | deleteFile |               |            |
      | text       |        |            |               | Deleted a. |
    When the user approves "call_A" in the client
    Then [CHAIN-01] the client made 2 requests
    And every tool call's state moved forward only
    And the tool call "call_A" went through approval-requested, approval-responded and output-available

    # A second request under a new id for a call already answered (a run
    # retried by the server, asking again): in the interrupt form it comes
    # at the run's end, after the call's result, so nothing moves back
    # whatever the client does.
    Examples:
      | protocol          |
      | ag-ui-legacy      |
      | ui-message-stream |

  @CHAIN-04 @CHAIN-01 @REQ-07
  Scenario Outline: an approved call whose tool fails ends in output-error (<protocol>)
    Given the client speaks "<protocol>"
    And the client knows a tool "deleteFile" that needs approval
    And the chat server answers with:
      | event    | call   | tool       | input         |
      | call     | call_A | deleteFile | {"path":"/a"} |
      | approval | call_A | deleteFile | {"path":"/a"} |
    When the user sends "delete a" in the client
    Then [REQ-07] the client shows an approval request for "call_A"
    Given the chat server answers with:
      | event | call   | tool       | text                           |
      | error | call_A | deleteFile | disk is read-only              |
      | text  |        |            | I could not delete a: read-only. |
    When the user approves "call_A" in the client because "it is only a test file"
    Then [CHAIN-01] the client made 2 requests
    And [CHAIN-01] request 2 carries the approval of "call_A" with the reason "it is only a test file"
    And the tool call "call_A" went through approval-requested, approval-responded and output-error
    And every tool call's state moved forward only

    Examples:
      | protocol          |
      | ag-ui             |
      | ag-ui-legacy      |
      | ui-message-stream |

  @CHAIN-05 @REQ-07
  Scenario Outline: a new message while an approval is pending leaves no call dangling (<protocol>)
    Given the client speaks "<protocol>"
    And the client knows a tool "deleteFile" that needs approval
    And the chat server answers with:
      | event    | call   | tool       | input         |
      | call     | call_A | deleteFile | {"path":"/a"} |
      | approval | call_A | deleteFile | {"path":"/a"} |
    When the user sends "delete a" in the client
    Then [REQ-07] the client shows an approval request for "call_A"
    Given the chat server may answer with the text "All right, I will not delete a."
    When the user sends "actually, never mind" in the client
    Then the message was refused with a clear error, held in the client's queue, or "call_A" was answered in the request that sent it
    And no request left a call dangling

    Examples:
      | protocol          |
      | ag-ui             |
      | ag-ui-legacy      |
      | ui-message-stream |

  @CHAIN-05 @CHAIN-01 @REQ-07
  Scenario Outline: a new message after every approval was answered changes no answer (<protocol>)
    Given the client speaks "<protocol>"
    And the client knows a tool "deleteFile" that needs approval
    And the chat server answers with:
      | event    | call   | tool       | input         |
      | call     | call_A | deleteFile | {"path":"/a"} |
      | approval | call_A | deleteFile | {"path":"/a"} |
    When the user sends "delete a" in the client
    Then [REQ-07] the client shows an approval request for "call_A"
    Given the chat server answers with:
      | event  | call   | tool       | text       |
      | result | call_A | deleteFile |            |
      | text   |        |            | Deleted a. |
    When the user approves "call_A" in the client
    Then [CHAIN-01] the client made 2 requests
    Given the chat server answers with the text "You are welcome."
    When the user sends "thanks" in the client
    Then [CHAIN-05] the client made 3 requests
    And [CHAIN-05] request 3 carries the approval of "call_A"

    Examples:
      | protocol          |
      | ag-ui-legacy      |
      | ui-message-stream |

  @CHAIN-05 @REQ-07
  Scenario Outline: a new message while several approvals are pending leaves none of them dangling (<protocol>)
    Given the client speaks "<protocol>"
    And the client knows a tool "deleteFile" that needs approval
    And the chat server answers with:
      | event    | call   | tool       | input         |
      | call     | call_A | deleteFile | {"path":"/a"} |
      | approval | call_A | deleteFile | {"path":"/a"} |
      | call     | call_B | deleteFile | {"path":"/b"} |
      | approval | call_B | deleteFile | {"path":"/b"} |
    When the user sends "delete a and b" in the client
    Then [REQ-07] the client shows an approval request for "call_A"
    And [REQ-07] the client shows an approval request for "call_B"
    Given the chat server may answer with the text "All right, I will delete nothing."
    When the user sends "actually, never mind" in the client
    Then the message was refused with a clear error, held in the client's queue, or "call_A" was answered in the request that sent it
    And the message was refused with a clear error, held in the client's queue, or "call_B" was answered in the request that sent it
    And no request left a call dangling

    Examples:
      | protocol          |
      | ag-ui             |
      | ag-ui-legacy      |
      | ui-message-stream |

  @REQ-07
  Scenario Outline: approval requests reach the client unchanged (<protocol>)
    Given the client speaks "<protocol>"
    And the client knows a tool "deleteFile" that needs approval
    And the chat server answers with:
      | event    | call   | tool       | input         | text                      |
      | text     |        |            |               | I need your approval.     |
      | call     | call_A | deleteFile | {"path":"/a"} |                           |
      | approval | call_A | deleteFile | {"path":"/a"} |                           |
    When the user sends "delete a" in the client
    Then [REQ-07] the client shows an approval request for "call_A"
    And [REQ-07] the client shows the approval request for "call_A" with the id the server sent

    Examples:
      | protocol          |
      | ag-ui             |
      | ag-ui-legacy      |
      | ui-message-stream |
