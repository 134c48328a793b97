@agent
Feature: Edited approvals
  A user may approve a call with its input changed (a smaller amount, a
  safer path): the call then runs with the edited input and never with the
  model's, and the model sees the call as it ran. These scenarios run on
  targets that declare editedApprovals; the others find them not
  applicable. Every assertion names, in brackets, the check whose rule it
  tests.

  Background:
    Given a tool "deleteFile" that needs approval

  @EDIT-01 @EDIT-02 @REQ-01 @PRE-01
  Scenario Outline: an edited approval runs the edited input, never the original, and the model sees the edited call (<mode>)
    Given the agent runs in <mode> mode
    And the model calls "deleteFile" with {"path":"/etc"} as "call_1"
    When the user says "clean up"
    Then [REQ-01] an approval is requested for "call_1"
    Given the model replies "Deleted /tmp/scratch."
    When the user approves "call_1" with its input edited to {"path":"/tmp/scratch"}
    Then [EDIT-01] "deleteFile" ran with {"path":"/tmp/scratch"}
    And [EDIT-01] "deleteFile" has not run with {"path":"/etc"}
    And [PRE-01] "call_1" has run
    And [EDIT-02] model call 2 received the call "call_1" with {"path":"/tmp/scratch"} beside its result
    And [PRE-01] the turn ends with finish reason "stop"

    Examples:
      | mode     |
      | generate |
      | stream   |

  @EDIT-01 @WIRE-04 @PRE-01 @REQ-01
  Scenario Outline: a replayed edited approval runs once, with the edited input (<mode>)
    Given the agent runs in <mode> mode
    And the model calls "deleteFile" with {"path":"/etc"} as "call_1"
    When the user says "clean up"
    Then [REQ-01] an approval is requested for "call_1"
    Given the model replies "Deleted /tmp/scratch."
    When the user approves "call_1" with its input edited to {"path":"/tmp/scratch"}
    Then [PRE-01] "call_1" has run
    Given the model may reply "Deleted /tmp/scratch."
    When the same request is sent again
    Then [EDIT-01] "deleteFile" has not run with {"path":"/etc"}
    And [WIRE-04] "call_1" has run 1 time

    Examples:
      | mode     |
      | generate |
      | stream   |

  @EDIT-01 @EDIT-02 @REQ-01 @PRE-01
  Scenario Outline: an edited approval beside a plain one: each call runs, and reaches the model, with the input it ran with (<mode>)
    Given the agent runs in <mode> mode
    And the model calls:
      | id     | tool       | input            |
      | call_1 | deleteFile | {"path":"/etc"}  |
      | call_2 | deleteFile | {"path":"/tmp/b"} |
    When the user says "clean up"
    Then [REQ-01] an approval is requested for "call_1"
    And [REQ-01] an approval is requested for "call_2"
    Given the model replies "Deleted /tmp/a and /tmp/b."
    When the user approves "call_1" with its input edited to {"path":"/tmp/a"} and approves "call_2" as it is
    Then [PRE-01] "call_1" has run
    And [PRE-01] "call_2" has run
    And [EDIT-01] "deleteFile" has not run with {"path":"/etc"}
    And [EDIT-02] the model saw "call_1" with the input it ran with
    And [EDIT-02] model call 2 received the call "call_1" with {"path":"/tmp/a"} beside its result
    And [EDIT-02] model call 2 received the call "call_2" with {"path":"/tmp/b"} beside its result

    Examples:
      | mode     |
      | generate |
      | stream   |

  @EDIT-01 @EDIT-02 @REQ-01 @out-of-contract
  Scenario Outline: an edited approval after an answer that matches no request still runs, and reaches the model, as edited (<mode>)
    Given the agent runs in <mode> mode
    And the model calls "deleteFile" with {"path":"/etc"} as "call_1"
    When the user says "clean up"
    Then [REQ-01] an approval is requested for "call_1"
    Given the model may reply "Deleted /tmp/scratch."
    When the user approves "call_1" with its input edited to {"path":"/tmp/scratch"} after the unknown approval "approval_nobody_issued"
    Then [EDIT-01] "deleteFile" has not run with {"path":"/etc"}
    And [EDIT-02] model call 2 received the call "call_1" with {"path":"/tmp/scratch"} beside its result, or the turn refused the message

    Examples:
      | mode     |
      | generate |
      | stream   |

  @EDIT-01 @EDIT-02 @PRE-11 @REQ-01 @out-of-contract
  Scenario Outline: a call approved twice in one message with two edits runs once, and the model sees the input it ran with (<mode>)
    Given the agent runs in <mode> mode
    And the model calls "deleteFile" with {"path":"/etc"} as "call_1"
    When the user says "clean up"
    Then [REQ-01] an approval is requested for "call_1"
    Given the model may reply "Deleted."
    When the user approves "call_1" with its input edited to {"path":"/tmp/a"} and again to {"path":"/tmp/b"} in one message
    Then [EDIT-01] "deleteFile" has not run with {"path":"/etc"}
    And [PRE-11] the turn resolved "call_1" once, or refused the message with a clear error
    And [EDIT-02] the model saw "call_1" with the input it ran with

    Examples:
      | mode     |
      | generate |
      | stream   |
