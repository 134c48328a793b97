@agent
Feature: Policies that decide without asking
  A dynamic policy may approve or deny a call on its own, without asking
  the user (the AI SDK's toolApproval statuses approved and denied). A call
  denied that way is a denial like any other: it never runs, and the model
  and the stream get its denial result, with the policy's reason. A call
  approved that way runs once, and its result reaches the model.
  Every assertion names, in brackets, the check whose rule it tests.

  @PRE-02 @DEN-01 @DEN-02 @PRE-08
  Scenario Outline: a call the policy denies on its own reaches the model and the stream as a denial (<mode>)
    Given the agent runs in <mode> mode
    And a tool "wipeDisk" whose approval policy denies every call on its own because "wiping is disabled here"
    And the model calls "wipeDisk" with {"disk":"/dev/sda"} as "call_1"
    And the model replies "Wiping is disabled here."
    When the user says "wipe the disk"
    Then [PRE-02] "wipeDisk" has not run
    And [DEN-01] the turn added an "execution-denied" result for "call_1"
    And [DEN-01] model call 2 received an "execution-denied" result for "call_1"
    And [DEN-02] model call 2 received the denial of "call_1" with the user's reason "wiping is disabled here"
    And the stream's result events match the turn's results

    Examples:
      | mode     |
      | generate |
      | stream   |

  @PRE-01 @PRE-08
  Scenario Outline: a call the policy approves on its own runs once, and its result reaches the model (<mode>)
    Given the agent runs in <mode> mode
    And a tool "readFile" whose approval policy approves every call on its own
    And the tool "readFile" returns {"text":"hello"}
    And the model calls "readFile" with {"path":"/a"} as "call_1"
    And the model replies "It says hello."
    When the user says "read /a"
    Then [PRE-01] "readFile" has run 1 time
    And [PRE-01] model call 2 received a "json" result for "call_1"
    And the stream's result events match the turn's results

    Examples:
      | mode     |
      | generate |
      | stream   |

  @PRE-02 @REQ-01 @REQ-06
  Scenario Outline: a call the policy denies on its own, first in a step, leaves the calls after it their own outcomes (<mode>)
    Given the agent runs in <mode> mode
    And a tool "wipeDisk" whose approval policy denies every call on its own because "wiping is disabled here"
    And a tool "deleteFile" that needs approval
    And the model calls:
      | id     | tool       | input               |
      | call_1 | wipeDisk   | {"disk":"/dev/sda"} |
      | call_2 | deleteFile | {"path":"/tmp/a"}   |
    When the user says "wipe the disk and delete /tmp/a"
    Then [PRE-02] "wipeDisk" has not run
    And [REQ-01] an approval is requested for "call_2"
    And [REQ-06] every call of the turn has a result or a pending approval

    Examples:
      | mode     |
      | generate |
      | stream   |
