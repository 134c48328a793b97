@agent
Feature: Denial results
  A denied call becomes a failure result of type execution-denied that
  carries the user's reason, and it reads the same in every later turn.

  Background:
    Given a tool "deleteFile" that needs approval

  @DEN-01
  Scenario Outline: a denial is an execution-denied failure result (<mode>)
    Given the agent runs in <mode> mode
    And the model calls "deleteFile" with {"path":"/a"} as "call_1"
    When the user says "delete /a"
    Given the model replies "I left /a alone."
    When the user denies "call_1" because "not today"
    Then the turn added an "execution-denied" result for "call_1"
    And model call 2 received an "execution-denied" result for "call_1"
    And "deleteFile" has not run

    Examples:
      | mode     |
      | generate |
      | stream   |

  @DEN-02
  Scenario Outline: the user's denial reason reaches the model (<mode>)
    Given the agent runs in <mode> mode
    And the model calls "deleteFile" with {"path":"/a"} as "call_1"
    When the user says "delete /a"
    Given the model replies "I left /a alone."
    When the user denies "call_1" because "the file is still in use"
    Then model call 2 received an "execution-denied" result for "call_1" with reason "the file is still in use"

    Examples:
      | mode     |
      | generate |
      | stream   |

  @DEN-02
  Scenario Outline: denials without a reason read the same stable text (<mode>)
    Given the agent runs in <mode> mode
    And the model calls:
      | id     | tool       | input         |
      | call_1 | deleteFile | {"path":"/a"} |
      | call_2 | deleteFile | {"path":"/b"} |
    When the user says "delete /a and /b"
    Given the model replies "I left both alone."
    When the user denies "call_1" and "call_2"
    Then model call 2 received the same denial text for "call_1" and "call_2"

    Examples:
      | mode     |
      | generate |
      | stream   |

  @DEN-03
  Scenario Outline: a denial reads the same in later turns (<mode>)
    Given the agent runs in <mode> mode
    And the model calls "deleteFile" with {"path":"/a"} as "call_1"
    When the user says "delete /a"
    Given the model replies "I left /a alone."
    When the user denies "call_1" because "not today"
    Given the model replies "Then what can I do?"
    When the user says "nothing for now"
    Then model call 3 received the same result for "call_1" as model call 2

    Examples:
      | mode     |
      | generate |
      | stream   |
