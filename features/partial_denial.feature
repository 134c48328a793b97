@agent
Feature: Partial denial
  When one of several calls of a step is denied, every call of that step
  still gets exactly one result before the model is called again, and no
  call runs without approval (seed 003).

  Background:
    Given a tool "writeFile" that needs approval

  @PART-01 @WIRE-01
  Scenario Outline: a denied call among several leaves no call without a result (<mode>)
    Given the agent runs in <mode> mode
    And the model calls:
      | id     | tool      | input         |
      | call_1 | writeFile | {"path":"/a"} |
      | call_2 | writeFile | {"path":"/b"} |
      | call_3 | writeFile | {"path":"/c"} |
    When the user says "write a, b and c"
    Given the model replies "I wrote what you allowed."
    When the user answers:
      | call   | answer  | reason      |
      | call_1 | deny    | not a.txt   |
      | call_2 | approve |             |
      | call_3 | approve |             |
    Then the turn ends with finish reason "stop"
    And model call 2 received exactly one result for each of "call_1", "call_2" and "call_3"
    And model call 2 received an "execution-denied" result for "call_1"
    And "call_1" has not run

    Examples:
      | mode     |
      | generate |
      | stream   |

  @PART-02
  Scenario Outline: under the independent policy, approved calls run exactly once and denied ones never (<mode>)
    Given the target's denial policy is "independent"
    And the agent runs in <mode> mode
    And the model calls:
      | id     | tool      | input         |
      | call_1 | writeFile | {"path":"/a"} |
      | call_2 | writeFile | {"path":"/b"} |
      | call_3 | writeFile | {"path":"/c"} |
    When the user says "write a, b and c"
    Given the model replies "I wrote b and c."
    When the user answers:
      | call   | answer  | reason    |
      | call_1 | deny    | not a.txt |
      | call_2 | approve |           |
      | call_3 | approve |           |
    Then "call_1" has not run
    And "call_2" has run 1 time
    And "call_3" has run 1 time
    And model call 2 received a "json" result for "call_2"
    And model call 2 received a "json" result for "call_3"

    Examples:
      | mode     |
      | generate |
      | stream   |

  @PART-02
  Scenario Outline: under the abort-remaining policy, approved calls after a denial are skipped (<mode>)
    Given the target's denial policy is "abort-remaining"
    And the agent runs in <mode> mode
    And the model calls:
      | id     | tool      | input         |
      | call_1 | writeFile | {"path":"/a"} |
      | call_2 | writeFile | {"path":"/b"} |
      | call_3 | writeFile | {"path":"/c"} |
    When the user says "write a, b and c"
    Given the model replies "I wrote a only."
    When the user answers:
      | call   | answer  | reason    |
      | call_1 | approve |           |
      | call_2 | deny    | not b.txt |
      | call_3 | approve |           |
    Then "call_1" has run 1 time
    And "call_2" has not run
    And "call_3" has not run
    And model call 2 received an error result for "call_3" containing "Error: Tool execution was skipped due to previous tool denial."
    And model call 2 received exactly one result for each of "call_1", "call_2" and "call_3"

    Examples:
      | mode     |
      | generate |
      | stream   |
