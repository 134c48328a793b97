@agent
Feature: Denial results
  A denied call becomes a failure result of type execution-denied that
  carries the user's reason, and it reads the same in every later turn.
  Every assertion names, in brackets, the check whose rule it tests.

  Background:
    Given a tool "deleteFile" that needs approval

  @DEN-01 @PRE-02 @REQ-01
  Scenario Outline: a denial is an execution-denied failure result, in the turn's messages and in the prompt (<mode>)
    Given the agent runs in <mode> mode
    And the model calls "deleteFile" with {"path":"/a"} as "call_1"
    When the user says "delete /a"
    Then [REQ-01] an approval is requested for "call_1"
    Given the model replies "I left /a alone."
    When the user denies "call_1" because "not today"
    Then [DEN-01] the turn added an "execution-denied" result for "call_1"
    And [DEN-01] model call 2 received an "execution-denied" result for "call_1"
    And [PRE-02] "deleteFile" has not run

    Examples:
      | mode     |
      | generate |
      | stream   |

  @DEN-01 @PRE-02 @REQ-01
  Scenario Outline: several denials of one step are each an execution-denied result (<mode>)
    Given the agent runs in <mode> mode
    And the model calls:
      | id     | tool       | input         |
      | call_1 | deleteFile | {"path":"/a"} |
      | call_2 | deleteFile | {"path":"/b"} |
    When the user says "delete /a and /b"
    Then [REQ-01] approvals are requested for "call_1" and "call_2"
    Given the model replies "I left both alone."
    When the user denies "call_1" and "call_2" because "keep them"
    Then [DEN-01] the turn added an "execution-denied" result for "call_1"
    And [DEN-01] the turn added an "execution-denied" result for "call_2"
    And [DEN-01] model call 2 received an "execution-denied" result for "call_1"
    And [DEN-01] model call 2 received an "execution-denied" result for "call_2"
    And [PRE-02] "deleteFile" has not run
    And [PRE-02] model call 2 received exactly one result for each of "call_1" and "call_2"

    Examples:
      | mode     |
      | generate |
      | stream   |

  @DEN-02 @PRE-02 @REQ-01
  Scenario Outline: the user's denial reason reaches the model (<mode>)
    Given the agent runs in <mode> mode
    And the model calls "deleteFile" with {"path":"/a"} as "call_1"
    When the user says "delete /a"
    Then [REQ-01] an approval is requested for "call_1"
    Given the model replies "I left /a alone."
    When the user denies "call_1" because "the file is still in use"
    Then [PRE-02] model call 2 received exactly one result for each of "call_1"
    And model call 2 received the denial of "call_1" with the user's reason "the file is still in use"

    Examples:
      | mode     |
      | generate |
      | stream   |

  @DEN-02 @DEN-01 @PRE-02 @REQ-01
  Scenario Outline: denials without a reason read the same stable text (<mode>)
    Given the agent runs in <mode> mode
    And the model calls:
      | id     | tool       | input         |
      | call_1 | deleteFile | {"path":"/a"} |
      | call_2 | deleteFile | {"path":"/b"} |
    When the user says "delete /a and /b"
    Then [REQ-01] approvals are requested for "call_1" and "call_2"
    Given the model replies "I left both alone."
    When the user denies "call_1" and "call_2"
    Then [PRE-02] the turn ends with finish reason "stop"
    And [PRE-02] model call 2 received exactly one result for each of "call_1" and "call_2"
    And [DEN-01] model call 2 received an "execution-denied" result for "call_1"
    And [DEN-02] model call 2 received the same denial text for "call_1" and "call_2"

    Examples:
      | mode     |
      | generate |
      | stream   |

  @DEN-03 @PRE-02 @REQ-01
  Scenario Outline: a denial reads the same in later turns (<case>, <mode>)
    Given the agent runs in <mode> mode
    And the model calls "deleteFile" with {"path":"/a"} as "call_1"
    When the user says "delete /a"
    Then [REQ-01] an approval is requested for "call_1"
    Given the model replies "I left /a alone."
    When the user <denies>
    Then [PRE-02] "deleteFile" has not run
    Given the model replies "Then what can I do?"
    When the user says "nothing for now"
    Then [DEN-03] model call 3 received the same result for "call_1" as model call 2
    Given the model replies "Alright."
    When the user says "really, nothing"
    Then [DEN-03] model call 4 received the same result for "call_1" as model call 2

    Examples:
      | case             | denies                             | mode     |
      | with a reason    | denies "call_1" because "not today" | generate |
      | with a reason    | denies "call_1" because "not today" | stream   |
      | without a reason | denies "call_1"                    | generate |
      | without a reason | denies "call_1"                    | stream   |

  @DEN-01 @DEN-02 @PRE-02 @REQ-01
  Scenario Outline: a denied call to a tool the toolkit no longer holds still reaches the model as a denial, with the user's reason (<mode>)
    Given the agent runs in <mode> mode
    And a tool "sendEmail" that needs approval
    And the model calls "sendEmail" with {"to":"bob"} as "call_1"
    When the user says "mail bob"
    Then [REQ-01] an approval is requested for "call_1"
    Given the toolkit leaves out "sendEmail"
    And the model replies "I will not mail bob."
    When the user denies "call_1" because "not bob"
    Then [PRE-02] "sendEmail" has not run
    And [DEN-01] the turn added an "execution-denied" result for "call_1"
    And [DEN-01] model call 2 received an "execution-denied" result for "call_1"
    And [DEN-02] model call 2 received the denial of "call_1" with the user's reason "not bob"

    Examples:
      | mode     |
      | generate |
      | stream   |
