@agent
Feature: Pre-resolution
  Approval answers that arrive with a request are resolved before the model
  is called again: approved calls run, denied calls get a denial result, and
  the model receives a prompt in which every call has exactly one result.
  Every assertion names, in brackets, the check whose rule it
  tests.

  Background:
    Given a tool "deleteFile" that needs approval
    And a tool "readFile" that needs no approval

  @PRE-01 @REQ-01 @WIRE-02 @PRE-08
  Scenario Outline: an approved call runs before the model is called, and the prompt holds its result (<mode>)
    Given the agent runs in <mode> mode
    And the model calls "deleteFile" with {"path":"/a"} as "call_1"
    When the user says "delete /a"
    Then [REQ-01] an approval is requested for "call_1"
    Given the model replies "Deleted /a."
    When the user approves "call_1"
    Then [PRE-01] the turn ends with finish reason "stop"
    And [PRE-01] "call_1" has run
    And [PRE-01] "call_1" ran before model call 2
    And [PRE-01] model call 2 received a "json" result for "call_1"
    And [PRE-01] the turn added exactly one result for each of "call_1"
    And [WIRE-02] the turn's first message holds the results for "call_1"
    And the stream's result events match the turn's results

    Examples:
      | mode     |
      | generate |
      | stream   |

  @PRE-02 @DEN-01 @DEN-02 @REQ-01 @PRE-08
  Scenario Outline: a denied call does not run, and the prompt holds a denial result for it (<mode>)
    Given the agent runs in <mode> mode
    And the model calls "deleteFile" with {"path":"/a"} as "call_1"
    When the user says "delete /a"
    Then [REQ-01] an approval is requested for "call_1"
    Given the model replies "I will leave /a alone."
    When the user denies "call_1" because "not today"
    Then [PRE-02] the turn ends with finish reason "stop"
    And [PRE-02] "deleteFile" has not run
    And [PRE-02] model call 2 received exactly one result for each of "call_1"
    And [PRE-02] the turn added exactly one result for each of "call_1"
    And [DEN-01] model call 2 received an "execution-denied" result for "call_1"
    And model call 2 received the denial of "call_1" with the user's reason "not today"
    And the stream's result events match the turn's results

    Examples:
      | mode     |
      | generate |
      | stream   |

  @PRE-03 @PRE-01 @REQ-01
  Scenario Outline: a call whose result is in an earlier message is not run again (<mode>)
    Given the agent runs in <mode> mode
    And the model calls "deleteFile" with {"path":"/a"} as "call_1"
    When the user says "delete /a"
    Then [REQ-01] an approval is requested for "call_1"
    Given the model replies "Deleted /a."
    When the user approves "call_1"
    Then [PRE-01] "call_1" has run
    Given the model replies "You're welcome."
    When the user says "thanks"
    Then [PRE-03] "call_1" has not run again after its result
    Given the model replies "It is already done."
    When the user re-sends the approval for "call_1"
    Then [PRE-03] "call_1" has not run again after its result
    And [PRE-03] the turn holds no result for "call_1"
    And [PRE-03] model call 4 received exactly one result for each of "call_1"

    Examples:
      | mode     |
      | generate |
      | stream   |

  @PRE-03 @REQ-01
  Scenario Outline: a call whose result comes in the same message as its approval is not run (<mode>)
    Given the agent runs in <mode> mode
    And the model calls "deleteFile" with {"path":"/a"} as "call_1"
    When the user says "delete /a"
    Then [REQ-01] an approval is requested for "call_1"
    Given the model replies "Thanks for deleting it yourself."
    When the user approves "call_1" and sends its result {"deleted":"by hand"} in the same message
    Then [PRE-03] "call_1" has not run
    And [PRE-03] the turn holds no result for "call_1"
    And [PRE-03] model call 2 received exactly one result for each of "call_1"

    Examples:
      | mode     |
      | generate |
      | stream   |

  @PRE-03 @REQ-01
  Scenario Outline: a call whose result comes in a message before its approval's, in one request, is not run (<mode>)
    Given the agent runs in <mode> mode
    And the model calls "deleteFile" with {"path":"/a"} as "call_1"
    When the user says "delete /a"
    Then [REQ-01] an approval is requested for "call_1"
    Given the model replies "Thanks for deleting it yourself."
    When the user sends the result {"deleted":"by hand"} of "call_1" and then its approval in another message
    Then [PRE-03] "call_1" has not run
    And [PRE-03] the turn holds no result for "call_1"
    And [PRE-03] model call 2 received exactly one result for each of "call_1"

    Examples:
      | mode     |
      | generate |
      | stream   |

  @PRE-04 @PRE-12 @PRE-14 @REQ-01
  Scenario Outline: a response that matches no request never causes a run, and does not block the valid answer beside it (<order>, <mode>)
    Given the agent runs in <mode> mode
    And the model calls "deleteFile" with {"path":"/a"} as "call_1"
    When the user says "delete /a"
    Then [REQ-01] an approval is requested for "call_1"
    Given the model may reply "Deleted /a."
    When the user approves "call_1" <order> the unknown approval "approval_ghost"
    Then [PRE-04] "readFile" has not run
    And [PRE-04] "deleteFile" has not run with {"path":"/b"}
    And [PRE-04] "call_1" has run at most once
    And [PRE-14] the turn ends with finish reason "stop"
    And [PRE-14] "call_1" has run
    And [PRE-14] model call 2 received a "json" result for "call_1"
    And model call 2 received no approval parts
    And [PRE-12] model call 2 did not receive the text "orphan approval"

    Examples:
      | order      | mode     |
      | along with | generate |
      | along with | stream   |
      | after      | generate |
      | after      | stream   |

  @PRE-04 @REQ-01
  Scenario Outline: a response whose id is a call id, not an approval id, answers nothing (<mode>)
    Given the agent runs in <mode> mode
    And the model calls:
      | id     | tool       | input         |
      | call_1 | deleteFile | {"path":"/a"} |
      | call_2 | deleteFile | {"path":"/b"} |
    When the user says "delete /a and /b"
    Then [REQ-01] approvals are requested for "call_1" and "call_2"
    Given the model may reply "Deleted /a; /b waits."
    When the user approves "call_1" along with the unknown approval "call_2"
    Then [PRE-04] "call_2" has not run
    And [PRE-04] "call_1" has run at most once

    Examples:
      | mode     |
      | generate |
      | stream   |

  @PRE-05 @REQ-01
  Scenario Outline: pending approvals with <toolkit> toolkit fail with ToolkitRequired (<mode>)
    Given the agent runs in <mode> mode
    And the model calls "deleteFile" with {"path":"/a"} as "call_1"
    When the user says "delete /a"
    Then [REQ-01] an approval is requested for "call_1"
    Given <toolkit> toolkit is given
    When the user approves "call_1"
    Then [PRE-05] the turn fails with "ToolkitRequired"
    And [PRE-05] nothing has run
    And [PRE-05] the model was not called in the turn

    Examples:
      | toolkit  | mode     |
      | no       | generate |
      | no       | stream   |
      | an empty | generate |
      | an empty | stream   |

  @PRE-06 @REQ-01
  Scenario Outline: an approved call to a tool not in the toolkit never runs (<mode>)
    Given the agent runs in <mode> mode
    And the model calls "deleteFile" with {"path":"/a"} as "call_1"
    When the user says "delete /a"
    Then [REQ-01] an approval is requested for "call_1"
    Given the toolkit leaves out "deleteFile"
    And the model may reply "I could not delete /a."
    When the user approves "call_1"
    Then [PRE-06] the turn fails with "ToolNotFound" or "call_1" gets a denial result
    And [PRE-06] "deleteFile" has not run

    Examples:
      | mode     |
      | generate |
      | stream   |

  @PRE-07 @PRE-01 @REQ-01
  Scenario Outline: the concurrency option bounds how many approved calls run at once (bound <bound>)
    Given a tool "slowTask" that needs approval and is slow
    And the concurrency option is <bound>
    And the model calls:
      | id     | tool     | input    |
      | call_1 | slowTask | {"n":1}  |
      | call_2 | slowTask | {"n":2}  |
      | call_3 | slowTask | {"n":3}  |
    When the user says "run the three tasks"
    Then [REQ-01] approvals are requested for "call_1", "call_2" and "call_3"
    Given the model replies "All three tasks ran."
    When the user approves "call_1", "call_2" and "call_3"
    Then [PRE-01] "call_1" has run
    And [PRE-01] "call_2" has run
    And [PRE-01] "call_3" has run
    And at most <bound> tools ran at once

    Examples:
      | bound |
      | 1     |
      | 2     |

  @PRE-09 @PRE-01 @PRE-02 @DEN-01 @REQ-01
  Scenario Outline: every response of a batch is resolved (<mode>)
    Given the agent runs in <mode> mode
    And the model calls:
      | id     | tool       | input         |
      | call_1 | deleteFile | {"path":"/a"} |
      | call_2 | deleteFile | {"path":"/b"} |
      | call_3 | deleteFile | {"path":"/c"} |
    When the user says "delete /a, /b and /c"
    Then [REQ-01] approvals are requested for "call_1", "call_2" and "call_3"
    Given the model replies "Deleted /a and /b; kept /c."
    When the user answers:
      | call   | answer  | reason     |
      | call_1 | approve |            |
      | call_2 | approve |            |
      | call_3 | deny    | keep it    |
    Then [PRE-09] the turn ends with finish reason "stop"
    And [PRE-09] model call 2 received exactly one result for each of "call_1", "call_2" and "call_3"
    And [PRE-01] "call_1" has run
    And [PRE-01] "call_2" has run
    And [PRE-02] "call_3" has not run
    And [PRE-01] model call 2 received a "json" result for "call_1"
    And [PRE-01] model call 2 received a "json" result for "call_2"
    And [DEN-01] model call 2 received an "execution-denied" result for "call_3"

    Examples:
      | mode     |
      | generate |
      | stream   |

  @PRE-09 @PRE-01 @PRE-02 @PRE-13 @REQ-01
  Scenario Outline: a batch answered in two messages of one request is all resolved (<mode>)
    Given the agent runs in <mode> mode
    And the model calls:
      | id     | tool       | input         |
      | call_1 | deleteFile | {"path":"/a"} |
      | call_2 | deleteFile | {"path":"/b"} |
      | call_3 | deleteFile | {"path":"/c"} |
    When the user says "delete /a, /b and /c"
    Then [REQ-01] approvals are requested for "call_1", "call_2" and "call_3"
    Given the model replies "Deleted /a and /b; kept /c."
    When the user answers in two messages:
      | message | call   | answer  | reason  |
      | 1       | call_1 | approve |         |
      | 1       | call_2 | approve |         |
      | 2       | call_3 | deny    | keep it |
    Then [PRE-09] the turn ends with finish reason "stop"
    And [PRE-09] model call 2 received exactly one result for each of "call_1", "call_2" and "call_3"
    And [PRE-09] the turn added exactly one result for each of "call_1", "call_2" and "call_3"
    And [PRE-01] "call_1" has run
    And [PRE-01] "call_2" has run
    And [PRE-02] "call_3" has not run
    And [PRE-13] no side effect of the turn lost its result

    Examples:
      | mode     |
      | generate |
      | stream   |

  @PRE-09 @REQ-01 @REQ-03 @partial-batch
  Scenario Outline: only some of the pending approvals answered: nothing unanswered runs, and nothing is lost when the rest comes (<mode>)
    Given the agent runs in <mode> mode
    And the model calls:
      | id     | tool       | input         |
      | call_1 | deleteFile | {"path":"/a"} |
      | call_2 | deleteFile | {"path":"/b"} |
    When the user says "delete /a and /b"
    Then [REQ-01] approvals are requested for "call_1" and "call_2"
    When the user approves "call_1"
    Then [PRE-09] "call_2" has not run
    And [PRE-09] "call_1" has run at most once
    And [REQ-03] the model was not called in the turn
    Given the model replies "Deleted /a and /b."
    When the user approves "call_2"
    Then [PRE-09] the turn ends with finish reason "stop"
    And [PRE-09] "call_1" has run
    And [PRE-09] "call_2" has run
    And [PRE-09] model call 2 received exactly one result for each of "call_1" and "call_2"

    Examples:
      | mode     |
      | generate |
      | stream   |

  @PRE-10 @PRE-01 @REQ-01
  Scenario Outline: approval requests are found anywhere in the history (<mode>)
    Given the agent runs in <mode> mode
    And the model calls "deleteFile" with {"path":"/a"} as "call_1"
    When the user says "delete /a"
    Then [REQ-01] an approval is requested for "call_1"
    Given the model replies "Deleted /a."
    When the user approves "call_1" after an assistant note "I will wait for your answer."
    Then [PRE-10] the turn ends with finish reason "stop"
    And [PRE-10] "call_1" has run
    And [PRE-01] model call 2 received a "json" result for "call_1"

    Examples:
      | mode     |
      | generate |
      | stream   |

  @PRE-11 @REQ-01
  Scenario Outline: a duplicated approval runs the call once and gives one result (<how>, <mode>)
    Given the agent runs in <mode> mode
    And the model calls "deleteFile" with {"path":"/a"} as "call_1"
    When the user says "delete /a"
    Then [REQ-01] an approval is requested for "call_1"
    Given the model may reply "Deleted /a."
    When the user approves "call_1" <how>
    Then [PRE-11] the turn resolved "call_1" once, or refused the message with a clear error

    Examples:
      | how                                 | mode     |
      | twice in one message                | generate |
      | twice in one message                | stream   |
      | in one message and again in the next | generate |
      | in one message and again in the next | stream   |

  @PRE-11 @REQ-01
  Scenario Outline: conflicting answers for one call run it at most once and give one result (<how>, <mode>)
    Given the agent runs in <mode> mode
    And the model calls "deleteFile" with {"path":"/a"} as "call_1"
    When the user says "delete /a"
    Then [REQ-01] an approval is requested for "call_1"
    Given the model may reply "Understood."
    When the user <how>
    Then [PRE-11] the turn resolved "call_1" once, or refused the message with a clear error

    Examples:
      | how                                                  | mode     |
      | approves and denies "call_1" in one message          | generate |
      | approves and denies "call_1" in one message          | stream   |
      | approves "call_1" and denies it in the next message  | generate |
      | approves "call_1" and denies it in the next message  | stream   |

  @PRE-12 @REQ-01 @PRE-01
  Scenario Outline: approval parts and an approved call's reason do not reach the model (<mode>)
    Given the agent runs in <mode> mode
    And the model calls "deleteFile" with {"path":"/a"} as "call_1"
    When the user says "delete /a"
    Then [REQ-01] an approval is requested for "call_1"
    Given the model replies "Deleted /a."
    When the user approves "call_1" because "my private reason 7731"
    Then [PRE-01] "call_1" has run
    And model call 2 received no approval parts
    And [PRE-12] model call 2 did not receive the text "my private reason 7731"

    Examples:
      | mode     |
      | generate |
      | stream   |

  @PRE-13 @PRE-06 @REQ-01
  Scenario Outline: a turn that fails validation fails before any tool runs (<mode>)
    Given the agent runs in <mode> mode
    And a tool "sendEmail" that needs approval
    And the model calls:
      | id     | tool       | input          |
      | call_1 | deleteFile | {"path":"/a"}  |
      | call_2 | sendEmail  | {"to":"bob"}   |
    When the user says "delete /a and mail bob"
    Then [REQ-01] approvals are requested for "call_1" and "call_2"
    Given the toolkit leaves out "sendEmail"
    And the model may reply "I deleted /a but could not mail bob."
    When the user approves "call_1" and "call_2"
    Then [PRE-13] no side effect of the turn lost its result
    And [PRE-06] "sendEmail" has not run
    And [PRE-06] the turn fails with "ToolNotFound" or "call_2" gets a denial result

    Examples:
      | mode     |
      | generate |
      | stream   |
