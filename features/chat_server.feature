@server
Feature: The chat server
  The harness plays a conforming chat client against the target's chat
  endpoint, in each protocol and dialect the target declares; the agent
  behind the endpoint talks to the kit's simulated model and runs its tools
  through the harness. The client sends UI message histories the way real
  clients do (answers on the tool-call part, or as AG-UI resume entries
  naming the interrupt the server sent) and the suite judges what the
  server streams back and what reaches the model: a denial persisted as an
  answer leaves a call without a result, which the provider refuses
  (WIRE-01, always on); an answer dropped in conversion never runs the
  call nor tells the model.
  Every assertion names, in brackets, the check whose rule it tests.

  Background:
    Given a tool "deleteFile" that needs approval
    And the tool "deleteFile" returns {"deleted":"/a"}

  @REQ-07 @REQ-01 @PRE-01 @PRE-08
  Scenario Outline: an approval given in the chat runs the call once and tells the model and the client (<protocol>)
    Given the chat endpoint speaks "<protocol>"
    And the model calls "deleteFile" with {"path":"/a"} as "call_1"
    When the user sends "delete /a" to the chat endpoint
    Then [REQ-07] the chat stream asks approval for "call_1"
    And [REQ-01] "deleteFile" has not run
    Given the model replies "Deleted /a."
    When the user approves "call_1" in the chat
    Then [PRE-01] "call_1" has run
    And [PRE-01] model call 2 received a "json" result for "call_1"
    And [PRE-08] the chat stream gives "call_1" the output {"deleted":"/a"}
    And [PRE-08] the chat stream carries the text "Deleted /a."

    Examples:
      | protocol                   |
      | ui-message-stream          |
      | ag-ui                      |
      | ag-ui, resume entries only |
      | ag-ui-legacy               |

  @REQ-07 @PRE-02 @DEN-01 @DEN-02
  Scenario Outline: a denial given in the chat reaches the model and the client as a denial, with the user's reason (<protocol>)
    Given the chat endpoint speaks "<protocol>"
    And the model calls "deleteFile" with {"path":"/a"} as "call_1"
    When the user sends "delete /a" to the chat endpoint
    Then [REQ-07] the chat stream asks approval for "call_1"
    Given the model replies "I left /a alone."
    When the user denies "call_1" in the chat because "keep it"
    Then [PRE-02] "deleteFile" has not run
    And [DEN-01] model call 2 received an "execution-denied" result for "call_1"
    And [DEN-02] model call 2 received the denial of "call_1" with the user's reason "keep it"
    And [DEN-01] the chat stream reports "call_1" as denied

    Examples:
      | protocol                   |
      | ui-message-stream          |
      | ag-ui                      |
      | ag-ui, resume entries only |
      | ag-ui-legacy               |

  @REQ-07 @PRE-09 @PART-02 @PART-01 @PRE-01 @DEN-01 @PRE-08
  Scenario Outline: one call approved and one denied in the chat: each gets its own outcome, in the prompt and in the stream (<protocol>)
    Given the chat endpoint speaks "<protocol>"
    And the model calls:
      | id     | tool       | input         |
      | call_1 | deleteFile | {"path":"/a"} |
      | call_2 | deleteFile | {"path":"/b"} |
    When the user sends "delete /a and /b" to the chat endpoint
    Then [REQ-07] the chat stream asks approval for "call_1"
    And [REQ-07] the chat stream asks approval for "call_2"
    Given the model replies "Deleted /a, kept /b."
    When the user approves "call_1" in the chat
    Then [PRE-09] the chat stream reports no outcome of "call_1"
    When the user denies "call_2" in the chat
    Then [PART-02] "deleteFile" has run 1 time
    And [PART-01] model call 2 received exactly one result for each of "call_1" and "call_2"
    And [PRE-01] model call 2 received a "json" result for "call_1"
    And [DEN-01] model call 2 received an "execution-denied" result for "call_2"
    And [PRE-08] the chat stream gives "call_1" the output {"deleted":"/a"}
    And [DEN-01] the chat stream reports "call_2" as denied

    Examples:
      | protocol                   |
      | ui-message-stream          |
      | ag-ui                      |
      | ag-ui, resume entries only |
      | ag-ui-legacy               |

  @REQ-07 @ERR-02
  Scenario Outline: a tool that fails after its approval reaches the model and the client as an error, with its text, or fails the turn as declared (<protocol>)
    Given the chat endpoint speaks "<protocol>"
    And the tool "deleteFile" fails with "disk is read-only"
    And the model calls "deleteFile" with {"path":"/a"} as "call_1"
    When the user sends "delete /a" to the chat endpoint
    Then [REQ-07] the chat stream asks approval for "call_1"
    Given the model may reply "The disk is read-only."
    When the user approves "call_1" in the chat
    Then [ERR-02] "call_1" failed as the target declares, with "disk is read-only"
    And [ERR-02] the chat stream reports "call_1" as failed with "disk is read-only"
    And [ERR-02] the chat stream ends without an error

    Examples:
      | protocol                   |
      | ui-message-stream          |
      | ag-ui                      |
      | ag-ui, resume entries only |
      | ag-ui-legacy               |

  @out-of-contract @REQ-07 @PRE-08 @WIRE-04
  Scenario Outline: a stale tab approving a call again after its result never runs it twice (<protocol>)
    Given the chat endpoint speaks "<protocol>"
    And the model calls "deleteFile" with {"path":"/a"} as "call_1"
    When the user sends "delete /a" to the chat endpoint
    Then [REQ-07] the chat stream asks approval for "call_1"
    Given the model replies "Deleted /a."
    When the user approves "call_1" in the chat
    Then [PRE-08] the chat stream gives "call_1" the output {"deleted":"/a"}
    Given the model may reply "Already done."
    When a stale tab answers "call_1" again, approving it
    Then [WIRE-04] "deleteFile" has run 1 time

    Examples:
      | protocol                   |
      | ui-message-stream          |
      | ag-ui                      |
      | ag-ui, resume entries only |
      | ag-ui-legacy               |

  @out-of-contract @REQ-07 @PRE-08 @PRE-02
  Scenario Outline: a stale tab denying a call after its result never runs it again (<protocol>)
    Given the chat endpoint speaks "<protocol>"
    And the model calls "deleteFile" with {"path":"/a"} as "call_1"
    When the user sends "delete /a" to the chat endpoint
    Then [REQ-07] the chat stream asks approval for "call_1"
    Given the model replies "Deleted /a."
    When the user approves "call_1" in the chat
    Then [PRE-08] the chat stream gives "call_1" the output {"deleted":"/a"}
    Given the model may reply "It is already deleted."
    When a stale tab answers "call_1" again, denying it
    Then [PRE-02] "deleteFile" has run 1 time

    Examples:
      | protocol                   |
      | ui-message-stream          |
      | ag-ui                      |
      | ag-ui, resume entries only |
      | ag-ui-legacy               |

  @PRE-02 @DEN-01 @DEN-02
  Scenario Outline: a call the policy denies on its own reaches the model and the chat stream as a denial (<protocol>)
    Given the chat endpoint speaks "<protocol>"
    And a tool "wipeDisk" whose approval policy denies every call on its own because "wiping is disabled here"
    And the model calls "wipeDisk" with {"disk":"/dev/sda"} as "call_1"
    And the model replies "Wiping is disabled here."
    When the user sends "wipe the disk" to the chat endpoint
    Then [PRE-02] "wipeDisk" has not run
    And [DEN-01] model call 2 received an "execution-denied" result for "call_1"
    And [DEN-02] model call 2 received the denial of "call_1" with the user's reason "wiping is disabled here"
    And [DEN-01] the chat stream reports "call_1" as denied

    Examples:
      | protocol                   |
      | ui-message-stream          |
      | ag-ui                      |
      | ag-ui, resume entries only |
      | ag-ui-legacy               |

  @REQ-07 @PRE-09 @DEN-01 @PART-02 @PRE-01 @DEN-03 @DEN-02
  Scenario Outline: outcomes streamed to the client come back in its next request as the same outcomes (<protocol>)
    Given the chat endpoint speaks "<protocol>"
    And the model calls:
      | id     | tool       | input         |
      | call_1 | deleteFile | {"path":"/a"} |
      | call_2 | deleteFile | {"path":"/b"} |
    When the user sends "delete /a and /b" to the chat endpoint
    Then [REQ-07] the chat stream asks approval for "call_1"
    And [REQ-07] the chat stream asks approval for "call_2"
    Given the model replies "Deleted /a, kept /b."
    When the user approves "call_1" in the chat
    Then [PRE-09] the chat stream reports no outcome of "call_1"
    When the user denies "call_2" in the chat because "keep b"
    Then [PRE-09] model call 2 received exactly one result for each of "call_1" and "call_2"
    And [DEN-01] model call 2 received an "execution-denied" result for "call_2"
    Given the model replies "Anything else?"
    When the user sends "what did you do?" to the chat endpoint
    Then [PART-02] "deleteFile" has run 1 time
    And [DEN-03] model call 3 received an "execution-denied" result for "call_2"
    And [PRE-01] model call 3 received a "json" result for "call_1"
    And [DEN-02] model call 3 received the denial of "call_2" with the user's reason "keep b"
    And [DEN-03] model call 3 received the same result for "call_2" as model call 2

    Examples:
      | protocol                   |
      | ui-message-stream          |
      | ag-ui                      |
      | ag-ui, resume entries only |
      | ag-ui-legacy               |

  @PRE-08 @REQ-06 @WIRE-01
  Scenario Outline: a turn that ends on its step limit leaves the call's output with the client, and the next prompt holds it (<protocol>)
    Given the chat endpoint speaks "<protocol>"
    And a tool "readFile" that needs no approval
    And the tool "readFile" returns {"text":"hello"}
    And the step limit is 1
    And the model calls "readFile" with {"path":"/a"} as "call_1"
    When the user sends "read /a" to the chat endpoint
    Then [PRE-08] the chat stream gives "call_1" the output {"text":"hello"}
    And [REQ-06] "readFile" has run 1 time
    Given the model replies "It says hello."
    When the user sends "what did it say?" to the chat endpoint
    Then [REQ-06] model call 2 received a "json" result for "call_1"
    And [WIRE-01] model call 2 received exactly one result for each of "call_1"

    Examples:
      | protocol                   |
      | ui-message-stream          |
      | ag-ui                      |
      | ag-ui, resume entries only |
      | ag-ui-legacy               |

  @REQ-07 @PRE-02 @DEN-01 @PRE-01
  Scenario Outline: two conversations on one chat endpoint, whose calls share an id, each resolve their own answer (<protocol>)
    Given the chat endpoint speaks "<protocol>"
    And the model calls "deleteFile" with {"path":"/a"} as "call_1"
    When the user sends "delete /a" to the chat endpoint
    Then [REQ-07] the chat stream asks approval for "call_1"
    Given the model calls "deleteFile" with {"path":"/b"} as "call_1"
    When the user opens a second chat and sends "delete /b"
    Then [REQ-07] the chat stream asks approval for "call_1"
    Given the model replies "I left /b alone."
    When the user denies "call_1" in the chat because "keep b"
    Then [PRE-02] "deleteFile" has not run
    And [DEN-01] model call 3 received an "execution-denied" result for "call_1"
    Given the model replies "Deleted /a."
    And the first chat is shown again
    When the user approves "call_1" in the chat
    Then [PRE-01] "deleteFile" has run
    And [PRE-02] "deleteFile" has not run with {"path":"/b"}
    And [PRE-01] model call 4 received a "json" result for "call_1"

    Examples:
      | protocol                   |
      | ui-message-stream          |
      | ag-ui                      |
      | ag-ui, resume entries only |
      | ag-ui-legacy               |

  @REQ-07 @PRE-02 @DEN-01 @DEN-02
  Scenario Outline: after a restart without the tool, a call denied in the chat still reaches the model and the client as a denial (<protocol>)
    Given the chat endpoint speaks "<protocol>"
    And a tool "sendEmail" that needs approval
    And the model calls "sendEmail" with {"to":"bob"} as "call_1"
    When the user sends "mail bob" to the chat endpoint
    Then [REQ-07] the chat stream asks approval for "call_1"
    Given the toolkit leaves out "sendEmail"
    And the chat endpoint restarts
    And the model replies "I left bob alone."
    When the user denies "call_1" in the chat because "not bob"
    Then [PRE-02] "sendEmail" has not run
    And [DEN-01] model call 2 received an "execution-denied" result for "call_1"
    And [DEN-02] model call 2 received the denial of "call_1" with the user's reason "not bob"
    And [DEN-01] the chat stream reports "call_1" as denied

    Examples:
      | protocol                   |
      | ui-message-stream          |
      | ag-ui                      |
      | ag-ui, resume entries only |
      | ag-ui-legacy               |

  @REQ-07 @PRE-01 @PRE-08 @PRE-03
  Scenario Outline: a model that fails after an approved call ran: the client gets the call's output and the model's error text, and the next message never runs the call again (<protocol>)
    Given the chat endpoint speaks "<protocol>"
    And the model calls "deleteFile" with {"path":"/a"} as "call_1"
    When the user sends "delete /a" to the chat endpoint
    Then [REQ-07] the chat stream asks approval for "call_1"
    Given the model answers with:
      """
      {"reply": {"error": {"status": 503, "type": "server_error", "message": "the model is overloaded"}}}
      """
    When the user approves "call_1" in the chat
    Then [PRE-01] "call_1" has run
    And [PRE-08] the chat stream gives "call_1" the output {"deleted":"/a"}
    And [PRE-08] the chat stream fails with "the model is overloaded"
    Given the model replies "Deleted /a."
    When the user sends "try again" to the chat endpoint
    Then [PRE-03] "deleteFile" has run 1 time
    And [PRE-01] model call 3 received a "json" result for "call_1"
    And [PRE-01] model call 3 received the same result for "call_1" as model call 2

    Examples:
      | protocol                   |
      | ui-message-stream          |
      | ag-ui                      |
      | ag-ui, resume entries only |
      | ag-ui-legacy               |

  @out-of-contract @REQ-07 @PRE-08 @WIRE-04
  Scenario Outline: an application that trimmed an approved call's output from the chat history never runs the call again (<protocol>)
    Given the chat endpoint speaks "<protocol>"
    And the model calls "deleteFile" with {"path":"/a"} as "call_1"
    When the user sends "delete /a" to the chat endpoint
    Then [REQ-07] the chat stream asks approval for "call_1"
    Given the model replies "Deleted /a."
    When the user approves "call_1" in the chat
    Then [PRE-08] the chat stream gives "call_1" the output {"deleted":"/a"}
    Given the model may reply "It is deleted."
    When the application trims the output of "call_1" from the chat and the user sends "is it gone?"
    Then [WIRE-04] "deleteFile" has run 1 time

    Examples:
      | protocol                   |
      | ui-message-stream          |
      | ag-ui                      |
      | ag-ui, resume entries only |
      | ag-ui-legacy               |

  @out-of-contract @REQ-07 @SEC-01
  Scenario Outline: an answer under an approval id the chat server never issued does not run the call (<protocol>)
    Given the chat endpoint speaks "<protocol>"
    And the model calls "deleteFile" with {"path":"/a"} as "call_1"
    When the user sends "delete /a" to the chat endpoint
    Then [REQ-07] the chat stream asks approval for "call_1"
    Given the model may reply "I cannot do that."
    When the user approves "call_1" in the chat under the approval id "approval-never-issued"
    Then [SEC-01] "deleteFile" has not run

    Examples:
      | protocol                   |
      | ui-message-stream          |
      | ag-ui                      |
      | ag-ui, resume entries only |
      | ag-ui-legacy               |

  @out-of-contract @REQ-07 @SEC-02
  Scenario Outline: an approval sent on another call than the one it was asked for does not run that call (<protocol>)
    Given the chat endpoint speaks "<protocol>"
    And the model calls:
      | id     | tool       | input         |
      | call_1 | deleteFile | {"path":"/a"} |
      | call_2 | deleteFile | {"path":"/b"} |
    When the user sends "delete /a and /b" to the chat endpoint
    Then [REQ-07] the chat stream asks approval for "call_1"
    And [REQ-07] the chat stream asks approval for "call_2"
    Given the model may reply "I cannot do that."
    When the user approves "call_1" and denies "call_2" in the chat, each answer sent on the other call
    Then [SEC-02] "deleteFile" has not run with {"path":"/b"}

    Examples:
      | protocol                   |
      | ui-message-stream          |
      | ag-ui                      |
      | ag-ui, resume entries only |
      | ag-ui-legacy               |

  @PRE-08 @REQ-06
  Scenario Outline: two calls to one tool in a step each stream their own output, under their own call (<protocol>)
    Given the chat endpoint speaks "<protocol>"
    And a tool "readFile" that needs no approval
    And the tool "readFile" returns {"text":"hello"}
    And the model calls:
      | id     | tool     | input         |
      | call_1 | readFile | {"path":"/a"} |
      | call_2 | readFile | {"path":"/b"} |
    And the model replies "Both say hello."
    When the user sends "read /a and /b" to the chat endpoint
    Then [REQ-06] "readFile" has run 2 times
    And [PRE-08] the chat stream gives "call_1" the output {"text":"hello"}
    And [PRE-08] the chat stream gives "call_2" the output {"text":"hello"}
    And [PRE-08] the chat stream carries the text "Both say hello."

    Examples:
      | protocol                   |
      | ui-message-stream          |
      | ag-ui                      |
      | ag-ui, resume entries only |
      | ag-ui-legacy               |
