@agent
Feature: Partial denial
  When one of several calls of a step is denied, every call of that step
  still gets exactly one result before the model is called again, and no
  call runs without approval. Every assertion names, in
  brackets, the check whose rule it tests.

  Background:
    Given a tool "writeFile" that needs approval

  @PART-01 @DEN-01 @PRE-02 @REQ-01
  Scenario Outline: a denied call among several leaves no call without a result (denied <denied>, <mode>)
    Given the agent runs in <mode> mode
    And the model calls:
      | id     | tool      | input         |
      | call_1 | writeFile | {"path":"/a"} |
      | call_2 | writeFile | {"path":"/b"} |
      | call_3 | writeFile | {"path":"/c"} |
    When the user says "write a, b and c"
    Then [REQ-01] approvals are requested for "call_1", "call_2" and "call_3"
    Given the model replies "I wrote what you allowed."
    When the user answers:
      | call   | answer | reason       |
      | call_1 | <a1>   | not that one |
      | call_2 | <a2>   | not that one |
      | call_3 | <a3>   | not that one |
    Then [PART-01] the turn ends with finish reason "stop"
    And [PART-01] model call 2 received exactly one result for each of "call_1", "call_2" and "call_3"
    And [PART-01] the turn added exactly one result for each of "call_1", "call_2" and "call_3"
    And [DEN-01] model call 2 received an "execution-denied" result for "<denied>"
    And [PRE-02] "<denied>" has not run

    Examples:
      | denied | a1      | a2      | a3      | mode     |
      | call_1 | deny    | approve | approve | generate |
      | call_1 | deny    | approve | approve | stream   |
      | call_2 | approve | deny    | approve | generate |
      | call_3 | approve | approve | deny    | stream   |

  @PART-02 @REQ-01
  Scenario Outline: under the independent policy, approved calls run exactly once and denied ones never (<mode>)
    Given the target's denial policy is "independent"
    And the agent runs in <mode> mode
    And the model calls:
      | id     | tool      | input         |
      | call_1 | writeFile | {"path":"/a"} |
      | call_2 | writeFile | {"path":"/b"} |
      | call_3 | writeFile | {"path":"/c"} |
    When the user says "write a, b and c"
    Then [REQ-01] approvals are requested for "call_1", "call_2" and "call_3"
    Given the model replies "I wrote b and c."
    When the user answers:
      | call   | answer  | reason    |
      | call_1 | deny    | not a.txt |
      | call_2 | approve |           |
      | call_3 | approve |           |
    Then [PART-02] "call_1" has not run
    And [PART-02] "call_2" has run 1 time
    And [PART-02] "call_3" has run 1 time
    And [PART-02] model call 2 received a "json" result for "call_2"
    And [PART-02] model call 2 received a "json" result for "call_3"

    Examples:
      | mode     |
      | generate |
      | stream   |

  @PART-02 @PART-01 @REQ-01
  Scenario Outline: under the abort-remaining policy, approved calls after a denial are skipped with the stated text (<mode>)
    Given the target's denial policy is "abort-remaining"
    And the agent runs in <mode> mode
    And the model calls:
      | id     | tool      | input         |
      | call_1 | writeFile | {"path":"/a"} |
      | call_2 | writeFile | {"path":"/b"} |
      | call_3 | writeFile | {"path":"/c"} |
      | call_4 | writeFile | {"path":"/d"} |
    When the user says "write a, b, c and d"
    Then [REQ-01] approvals are requested for "call_1", "call_2", "call_3" and "call_4"
    Given the model replies "I wrote a only."
    When the user answers:
      | call   | answer  | reason    |
      | call_1 | approve |           |
      | call_2 | deny    | not b.txt |
      | call_3 | approve |           |
      | call_4 | approve |           |
    Then [PART-02] "call_1" has run 1 time
    And [PART-02] "call_2" has not run
    And [PART-02] "call_3" has not run
    And [PART-02] "call_4" has not run
    And model call 2 received the skipped result for "call_3"
    And model call 2 received the skipped result for "call_4"
    And [PART-01] model call 2 received exactly one result for each of "call_1", "call_2", "call_3" and "call_4"
    And [PART-01] the turn added exactly one result for each of "call_1", "call_2", "call_3" and "call_4"

    Examples:
      | mode     |
      | generate |
      | stream   |

  @PART-02 @PART-01 @REQ-01
  Scenario Outline: under the abort-remaining policy, a first call denied skips every approved call after it (<mode>)
    Given the target's denial policy is "abort-remaining"
    And the agent runs in <mode> mode
    And the model calls:
      | id     | tool      | input         |
      | call_1 | writeFile | {"path":"/a"} |
      | call_2 | writeFile | {"path":"/b"} |
    When the user says "write a and b"
    Then [REQ-01] approvals are requested for "call_1" and "call_2"
    Given the model replies "I wrote nothing."
    When the user answers:
      | call   | answer  | reason    |
      | call_1 | deny    |           |
      | call_2 | approve |           |
    Then [PART-02] "writeFile" has not run
    And [PART-01] the turn ends with finish reason "stop"
    And model call 2 received the skipped result for "call_2"
    And [PART-01] model call 2 received exactly one result for each of "call_1" and "call_2"

    Examples:
      | mode     |
      | generate |
      | stream   |
