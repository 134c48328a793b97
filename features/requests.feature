@agent
Feature: Issuing approval requests
  A call to a tool whose policy needs approval is never run in the turn that
  makes it. The runtime answers it with an approval request, and the pending
  approval ends the turn.

  Background:
    Given a tool "deleteFile" that needs approval
    And a tool "readFile" that needs no approval

  @REQ-01 @REQ-03
  Scenario Outline: a call that needs approval is not run and ends the turn (<mode>)
    Given the agent runs in <mode> mode
    And the step limit is 5
    And the model calls "deleteFile" with {"path":"/a"} as "call_1"
    When the user says "delete /a"
    Then the turn ends with finish reason "tool-calls"
    And an approval is requested for "call_1"
    And "deleteFile" has not run
    And the model was called 1 time in the turn

    Examples:
      | mode     |
      | generate |
      | stream   |

  @REQ-02
  Scenario Outline: approval ids are unique within a conversation (<mode>)
    Given the agent runs in <mode> mode
    And the model calls:
      | id     | tool       | input         |
      | call_1 | deleteFile | {"path":"/a"} |
      | call_2 | deleteFile | {"path":"/b"} |
    When the user says "delete /a and /b"
    Then approvals are requested for "call_1" and "call_2"
    Given the model calls "deleteFile" with {"path":"/c"} as "call_3"
    When the user approves "call_1" and "call_2"
    Then an approval is requested for "call_3"
    And every approval id in the conversation is unique

    Examples:
      | mode     |
      | generate |
      | stream   |

  @REQ-04
  Scenario Outline: a dynamic policy is asked once per call, with the call's input and the conversation (<mode>)
    Given the agent runs in <mode> mode
    And a tool "writeFile" that needs approval when "path" starts with "/etc"
    And the model calls:
      | id     | tool      | input             |
      | call_1 | writeFile | {"path":"/etc/x"} |
      | call_2 | writeFile | {"path":"/tmp/y"} |
    When the user says "write both files"
    Then an approval is requested for "call_1"
    And no approval is requested for "call_2"
    And "call_2" has run 1 time
    And "call_1" has not run
    And the policy was asked once for "call_1" with its input
    And the policy was asked once for "call_2" with its input
    And the policy saw the user's message "write both files"

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
    Then "wipeDisk" has not run
    And the turn asks approval for "call_1" or fails

    Examples:
      | mode     |
      | generate |
      | stream   |

  @REQ-06
  Scenario Outline: every call of a step ends the turn with a result or a pending approval (<mode>)
    Given the agent runs in <mode> mode
    And the model calls:
      | id     | tool       | input         |
      | call_1 | deleteFile | {"path":"/a"} |
      | call_2 | readFile   | {"path":"/b"} |
    When the user says "read /b, then delete /a"
    Then every call of the turn has a result or a pending approval
    And an approval is requested for "call_1"
    Given the model replies "Read /b and deleted /a."
    When the user approves "call_1"
    Then the turn ends with finish reason "stop"
    And model call 2 received exactly one result for each of "call_1" and "call_2"
    And "call_2" has run 1 time
    And "call_1" has run 1 time

    Examples:
      | mode     |
      | generate |
      | stream   |

  @REQ-07
  Scenario: approval-request events reach the stream's consumer unchanged and in order
    Given the agent runs in stream mode
    And the model calls:
      | id     | tool       | input         |
      | call_1 | deleteFile | {"path":"/a"} |
      | call_2 | readFile   | {"path":"/b"} |
      | call_3 | deleteFile | {"path":"/c"} |
    When the user says "tidy up"
    Then approvals are requested for "call_1" and "call_3"
    And the stream's approval-request events match the turn's messages
