@agent
Feature: Issuing approval requests
  A call to a tool whose policy needs approval is never run in the turn that
  makes it. The runtime answers it with an approval request, and the pending
  approval ends the turn. Every assertion names, in brackets, the check
  whose rule it tests.

  Background:
    Given a tool "deleteFile" that needs approval
    And a tool "readFile" that needs no approval

  @REQ-01 @REQ-03
  Scenario Outline: a call that needs approval is not run and ends the turn (<mode>)
    Given the agent runs in <mode> mode
    And the step limit is 5
    And the model calls "deleteFile" with {"path":"/a"} as "call_1"
    When the user says "delete /a"
    Then [REQ-01] an approval is requested for "call_1"
    And [REQ-01] "deleteFile" has not run
    And [REQ-03] the model was called 1 time in the turn

    Examples:
      | mode     |
      | generate |
      | stream   |

  # The input schema is optional in the driver protocol, as in the SDKs'
  # tool definitions: every other scenario gives each tool one.
  @REQ-01 @PRE-01
  Scenario Outline: a tool without an input schema is asked about and runs once approved (<mode>)
    Given the agent runs in <mode> mode
    And the tool "deleteFile" has no input schema
    And the model calls "deleteFile" with {"path":"/a"} as "call_1"
    When the user says "delete /a"
    Then [REQ-01] an approval is requested for "call_1"
    And [REQ-01] "deleteFile" has not run
    Given the model replies "Deleted /a."
    When the user approves "call_1"
    Then [PRE-01] "call_1" ran with {"path":"/a"}

    Examples:
      | mode     |
      | generate |
      | stream   |

  @REQ-01 @REQ-03
  Scenario Outline: a pending approval ends the turn, whatever finish reason the model gave (<mode>)
    Given the agent runs in <mode> mode
    And the step limit is 5
    And the model answers with:
      """
      {"reply": {"toolCalls": [{"id": "call_1", "name": "deleteFile", "input": {"path": "/a"}}], "finishReason": "stop"}}
      """
    When the user says "delete /a"
    Then [REQ-01] an approval is requested for "call_1"
    And [REQ-01] the approval request for "call_1" is in the assistant message that holds the call
    And [REQ-03] the model was called 1 time in the turn

    Examples:
      | mode     |
      | generate |
      | stream   |

  @REQ-01 @REQ-03 @REQ-06
  Scenario Outline: a call that needs approval in a later step of the turn is not run either (<mode>)
    Given the agent runs in <mode> mode
    And the step limit is 5
    And the model calls "readFile" with {"path":"/a"} as "call_1"
    And the model calls "deleteFile" with {"path":"/a"} as "call_2"
    When the user says "read /a, then delete it"
    Then [REQ-01] an approval is requested for "call_2"
    And [REQ-01] "deleteFile" has not run
    And [REQ-06] "call_1" has run
    And [REQ-06] the turn added exactly one result for each of "call_1"
    And [REQ-03] the model was called 2 times in the turn

    Examples:
      | mode     |
      | generate |
      | stream   |

  @REQ-01 @REQ-02 @REQ-06
  Scenario Outline: several calls that need approval in one step each get their own request (<mode>)
    Given the agent runs in <mode> mode
    And the model calls:
      | id     | tool       | input         |
      | call_1 | deleteFile | {"path":"/a"} |
      | call_2 | deleteFile | {"path":"/b"} |
      | call_3 | deleteFile | {"path":"/c"} |
    When the user says "delete /a, /b and /c"
    Then [REQ-01] approvals are requested for "call_1", "call_2" and "call_3"
    And [REQ-01] the approval request for "call_2" is in the assistant message that holds the call
    And [REQ-01] "deleteFile" has not run
    And every approval id in the conversation is unique
    And every call of the turn has a result or a pending approval

    Examples:
      | mode     |
      | generate |
      | stream   |

  @REQ-01 @REQ-02
  Scenario Outline: approval ids are unique within a conversation, across turns (<mode>)
    Given the agent runs in <mode> mode
    And the model calls:
      | id     | tool       | input         |
      | call_1 | deleteFile | {"path":"/a"} |
      | call_2 | deleteFile | {"path":"/b"} |
    When the user says "delete /a and /b"
    Then [REQ-01] approvals are requested for "call_1" and "call_2"
    Given the model calls "deleteFile" with {"path":"/c"} as "call_3"
    When the user approves "call_1" and "call_2"
    Then [REQ-01] an approval is requested for "call_3"
    And every approval id in the conversation is unique

    Examples:
      | mode     |
      | generate |
      | stream   |

  @REQ-04 @REQ-01
  Scenario Outline: a dynamic policy decides per call, with the call's input, its id and the conversation (<mode>)
    Given the agent runs in <mode> mode
    And a tool "writeFile" that needs approval when "path" starts with "/etc"
    And the model calls:
      | id     | tool      | input             |
      | call_1 | writeFile | {"path":"/etc/x"} |
      | call_2 | writeFile | {"path":"/tmp/y"} |
    When the user says "write both files"
    Then [REQ-01] an approval is requested for "call_1"
    And [REQ-01] "call_1" has not run
    And [REQ-04] no approval is requested for "call_2"
    And [REQ-04] "call_2" has run
    And the policy was asked for "call_1", each time with its input
    And the policy was asked for "call_2", each time with its input
    And the policy saw the call id "call_2"
    And the policy saw the user's message "write both files"

    Examples:
      | mode     |
      | generate |
      | stream   |

  @REQ-04 @PRE-01
  Scenario Outline: a dynamic policy asked again when the answer comes gets the call's own input again (<mode>)
    Given the agent runs in <mode> mode
    And a tool "writeFile" that needs approval when "path" starts with "/etc"
    And the model calls:
      | id     | tool      | input             |
      | call_1 | writeFile | {"path":"/etc/x"} |
      | call_2 | writeFile | {"path":"/etc/y"} |
    When the user says "write both files"
    Then [REQ-04] approvals are requested for "call_1" and "call_2"
    Given the model replies "Both written."
    When the user approves "call_1" and "call_2"
    Then [PRE-01] "call_1" has run
    And [PRE-01] "call_2" has run
    And the policy was asked for "call_1", each time with its input
    And the policy was asked for "call_2", each time with its input

    Examples:
      | mode     |
      | generate |
      | stream   |

  @REQ-05
  Scenario Outline: a policy that fails to evaluate never lets the tool run unapproved (<mode>)
    Given the agent runs in <mode> mode
    And a tool "wipeDisk" whose approval policy fails
    And the model calls "wipeDisk" with {"disk":"sda"} as "call_1"
    When the user says "wipe the disk"
    Then [REQ-05] "wipeDisk" has not run
    And [REQ-05] the turn asks approval for "call_1" or fails with a clear error

    Examples:
      | mode     |
      | generate |
      | stream   |

  @REQ-05
  Scenario Outline: a policy that crashes never lets the tool run unapproved (<mode>)
    Given the agent runs in <mode> mode
    And a tool "wipeDisk" whose approval policy panics
    And the model calls "wipeDisk" with {"disk":"sda"} as "call_1"
    When the user says "wipe the disk"
    Then [REQ-05] "wipeDisk" has not run
    And [REQ-05] the turn asks approval for "call_1" or fails with a clear error

    Examples:
      | mode     |
      | generate |
      | stream   |

  @REQ-06 @REQ-01 @PRE-01
  Scenario Outline: every call of a step ends the turn with a result or a pending approval (<mode>)
    Given the agent runs in <mode> mode
    And the model calls:
      | id     | tool       | input         |
      | call_1 | deleteFile | {"path":"/a"} |
      | call_2 | readFile   | {"path":"/b"} |
    When the user says "read /b, then delete /a"
    Then every call of the turn has a result or a pending approval
    And [REQ-01] an approval is requested for "call_1"
    And [REQ-06] "call_2" has run
    Given the model replies "Read /b and deleted /a."
    When the user approves "call_1"
    Then [PRE-01] the turn ends with finish reason "stop"
    And [PRE-01] "call_1" has run
    And [REQ-06] model call 2 received exactly one result for each of "call_1" and "call_2"
    And [REQ-06] "call_2" has run

    Examples:
      | mode     |
      | generate |
      | stream   |

  @REQ-07 @REQ-01
  Scenario: approval-request events reach the stream's consumer unchanged and in order
    Given the agent runs in stream mode
    And the model calls:
      | id     | tool       | input         |
      | call_1 | deleteFile | {"path":"/a"} |
      | call_2 | readFile   | {"path":"/b"} |
      | call_3 | deleteFile | {"path":"/c"} |
    When the user says "tidy up"
    Then [REQ-01] approvals are requested for "call_1" and "call_3"
    And the stream's approval-request events match the turn's messages
