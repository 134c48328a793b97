@agent
Feature: What reaches the model
  The simulator checks every prompt as the provider would, and answers a
  dangling, orphan, duplicate or misplaced result with the provider's exact
  HTTP 400. Every scenario of the suite fails on such a rejection; these
  scenarios aim at it.

  Background:
    Given a tool "deleteFile" that needs approval
    And a tool "readFile" that needs no approval

  @WIRE-01
  Scenario Outline: a step with approved, denied and unapproved calls reaches <provider> whole (<mode>)
    Given the model speaks "<provider>"
    And the agent runs in <mode> mode
    And the model calls:
      | id     | tool       | input         |
      | call_1 | deleteFile | {"path":"/a"} |
      | call_2 | readFile   | {"path":"/b"} |
      | call_3 | deleteFile | {"path":"/c"} |
    When the user says "read /b, delete /a and /c"
    Given the model replies "Deleted /a, kept /c."
    When the user answers:
      | call   | answer  | reason |
      | call_1 | approve |        |
      | call_3 | deny    | keep c |
    Then the turn ends with finish reason "stop"
    And no model call was rejected
    And model call 2 received exactly one result for each of "call_1", "call_2" and "call_3"

    Examples:
      | provider           | mode     |
      | openai-chat        | generate |
      | openai-chat        | stream   |
      | openai-responses   | generate |
      | anthropic-messages | stream   |

  @WIRE-02
  Scenario Outline: results follow their calls even when the user writes after answering (<provider>, <mode>)
    Given the model speaks "<provider>"
    And the agent runs in <mode> mode
    And the model calls "deleteFile" with {"path":"/a"} as "call_1"
    When the user says "delete /a"
    Given the model may reply "Deleted /a, and I will be quick."
    When the user approves "call_1" and adds "and please be quick"
    Then no model call was rejected
    And "call_1" has run at most 1 time

    Examples:
      | provider           | mode     |
      | openai-chat        | generate |
      | openai-chat        | stream   |
      | anthropic-messages | generate |

  @WIRE-03
  Scenario Outline: within one request every call runs at most once (<mode>)
    Given the agent runs in <mode> mode
    And the model calls:
      | id     | tool       | input         |
      | call_1 | deleteFile | {"path":"/a"} |
      | call_2 | readFile   | {"path":"/b"} |
    When the user says "read /b, delete /a"
    Then "call_2" has run 1 time
    Given the model replies "Done."
    When the user approves "call_1"
    Then "call_1" has run 1 time
    And "call_2" has run 1 time

    Examples:
      | mode     |
      | generate |
      | stream   |

  @WIRE-04 @should
  Scenario Outline: replaying the same request does not run a tool again (<mode>)
    Given the agent runs in <mode> mode
    And the model calls "deleteFile" with {"path":"/a"} as "call_1"
    When the user says "delete /a"
    Given the model replies "Deleted /a."
    When the user approves "call_1"
    Then "call_1" has run 1 time
    Given the model may reply "Deleted /a."
    When the same request is sent again
    Then "call_1" has run 1 time

    Examples:
      | mode     |
      | generate |
      | stream   |
