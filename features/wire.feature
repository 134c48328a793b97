@agent
Feature: What reaches the model
  The simulator checks every prompt as the provider would, and answers a
  dangling, orphan, duplicate or misplaced result with the provider's exact
  HTTP 400; that check (WIRE-01, WIRE-02) runs on every model call of every
  scenario, and a call run twice within one turn (WIRE-03) is caught on
  every turn. These scenarios aim at them. Every other assertion names, in
  brackets, the check whose rule it tests.

  Background:
    Given a tool "deleteFile" that needs approval
    And a tool "readFile" that needs no approval

  @WIRE-01 @REQ-01 @PRE-09
  Scenario Outline: a step with approved, denied and unapproved calls reaches <provider> whole (<mode>)
    Given the model speaks "<provider>"
    And the agent runs in <mode> mode
    And the model calls:
      | id     | tool       | input         |
      | call_1 | deleteFile | {"path":"/a"} |
      | call_2 | readFile   | {"path":"/b"} |
      | call_3 | deleteFile | {"path":"/c"} |
    When the user says "read /b, delete /a and /c"
    Then [REQ-01] approvals are requested for "call_1" and "call_3"
    Given the model replies "Deleted /a, kept /c."
    When the user answers:
      | call   | answer  | reason |
      | call_1 | approve |        |
      | call_3 | deny    | keep c |
    Then [PRE-09] the turn ends with finish reason "stop"
    And [WIRE-01] model call 2 received exactly one result for each of "call_1", "call_2" and "call_3"

    Examples:
      | provider           | mode     |
      | openai-chat        | generate |
      | openai-chat        | stream   |
      | openai-responses   | generate |
      | openai-responses   | stream   |
      | anthropic-messages | generate |
      | anthropic-messages | stream   |

  @WIRE-02 @PRE-01 @REQ-01
  Scenario Outline: results follow their calls even when the user writes after answering (<provider>, <mode>)
    Given the model speaks "<provider>"
    And the agent runs in <mode> mode
    And the model calls "deleteFile" with {"path":"/a"} as "call_1"
    When the user says "delete /a"
    Then [REQ-01] an approval is requested for "call_1"
    Given the model replies "Deleted /a, and I will be quick."
    When the user approves "call_1" and adds "and please be quick"
    Then [PRE-01] the turn ends with finish reason "stop"
    And [PRE-01] "call_1" has run
    And [PRE-01] model call 2 received a "json" result for "call_1"

    Examples:
      | provider           | mode     |
      | openai-chat        | generate |
      | openai-chat        | stream   |
      | openai-responses   | generate |
      | anthropic-messages | generate |
      | anthropic-messages | stream   |

  @WIRE-03 @REQ-06 @PRE-01 @PRE-03 @REQ-01
  Scenario Outline: within one request every call runs at most once (<mode>)
    Given the agent runs in <mode> mode
    And the model calls:
      | id     | tool       | input         |
      | call_1 | deleteFile | {"path":"/a"} |
      | call_2 | readFile   | {"path":"/b"} |
    When the user says "read /b, delete /a"
    Then [REQ-01] an approval is requested for "call_1"
    And [REQ-06] "call_2" has run
    Given the model replies "Done."
    When the user approves "call_1"
    Then [PRE-01] "call_1" has run
    And [PRE-03] "call_2" has run at most once

    Examples:
      | mode     |
      | generate |
      | stream   |

  @WIRE-04 @PRE-01 @REQ-01
  Scenario Outline: replaying the same request does not run a tool again (<mode>)
    Given the agent runs in <mode> mode
    And the model calls "deleteFile" with {"path":"/a"} as "call_1"
    When the user says "delete /a"
    Then [REQ-01] an approval is requested for "call_1"
    Given the model replies "Deleted /a."
    When the user approves "call_1"
    Then [PRE-01] "call_1" has run
    Given the model may reply "Deleted /a."
    When the same request is sent again
    Then [WIRE-04] "call_1" has run 1 time

    Examples:
      | mode     |
      | generate |
      | stream   |

  # The ledger's bound is an option the application sets: a runtime that
  # remembers a single approval still remembers the one it just ran.
  @WIRE-04 @PRE-01 @REQ-01
  Scenario Outline: a runtime that remembers one approval does not run it again on a replay (<mode>)
    Given the agent runs in <mode> mode
    And the runtime remembers the last 1 approval it ran
    And the model calls "deleteFile" with {"path":"/a"} as "call_1"
    When the user says "delete /a"
    Then [REQ-01] an approval is requested for "call_1"
    Given the model replies "Deleted /a."
    When the user approves "call_1"
    Then [PRE-01] "call_1" has run
    Given the model may reply "Deleted /a."
    When the same request is sent again
    Then [WIRE-04] "call_1" has run 1 time

    Examples:
      | mode     |
      | generate |
      | stream   |
