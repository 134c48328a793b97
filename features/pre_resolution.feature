@agent
Feature: Pre-resolution
  Approval answers that arrive with a request are resolved before the model
  is called again: approved calls run, denied calls get a denial result, and
  the model receives a prompt in which every call has exactly one result
  (seed 000).

  Background:
    Given a tool "deleteFile" that needs approval
    And a tool "readFile" that needs no approval

  @PRE-01 @WIRE-01
  Scenario Outline: an approved call runs before the model is called, and the prompt holds its result (<mode>)
    Given the agent runs in <mode> mode
    And the model calls "deleteFile" with {"path":"/a"} as "call_1"
    When the user says "delete /a"
    Then an approval is requested for "call_1"
    Given the model replies "Deleted /a."
    When the user approves "call_1"
    Then the turn ends with finish reason "stop"
    And "call_1" has run 1 time
    And "call_1" ran before model call 2
    And model call 2 received a "json" result for "call_1"
    And the turn's first message holds the results for "call_1"

    @generate
    Examples: generate mode
      | mode     |
      | generate |

    @PRE-08
    Examples: stream mode
      | mode   |
      | stream |

  @PRE-02
  Scenario Outline: a denied call does not run, and the prompt holds a denial result for it (<mode>)
    Given the agent runs in <mode> mode
    And the model calls "deleteFile" with {"path":"/a"} as "call_1"
    When the user says "delete /a"
    Given the model replies "I will leave /a alone."
    When the user denies "call_1" because "not today"
    Then the turn ends with finish reason "stop"
    And "deleteFile" has not run
    And model call 2 received an "execution-denied" result for "call_1"

    @generate
    Examples: generate mode
      | mode     |
      | generate |

    @PRE-08
    Examples: stream mode
      | mode   |
      | stream |

  @PRE-03
  Scenario Outline: a call that already has a result is not run again (<mode>)
    Given the agent runs in <mode> mode
    And the model calls "deleteFile" with {"path":"/a"} as "call_1"
    When the user says "delete /a"
    Given the model replies "Deleted /a."
    When the user approves "call_1"
    Then "call_1" has run 1 time
    Given the model replies "You're welcome."
    When the user says "thanks"
    Then "call_1" has run 1 time
    Given the model replies "It is already done."
    When the user re-sends the approval for "call_1"
    Then "call_1" has run 1 time
    And model call 4 received exactly one result for each of "call_1"

    @generate
    Examples: generate mode
      | mode     |
      | generate |

    @PRE-08
    Examples: stream mode
      | mode   |
      | stream |

  @PRE-04
  Scenario Outline: a response that matches no request never causes a run (<mode>)
    Given the agent runs in <mode> mode
    And the model calls "deleteFile" with {"path":"/a"} as "call_1"
    When the user says "delete /a"
    Given the model replies "Deleted /a."
    When the user approves "call_1" along with the unknown approval "approval_ghost"
    Then "call_1" has run 1 time
    And "deleteFile" has run 1 time
    And "readFile" has not run

    Examples:
      | mode     |
      | generate |
      | stream   |

  @PRE-04 @should
  Scenario Outline: a response that matches no request does not reach the model (<mode>)
    Given the agent runs in <mode> mode
    And the model calls "deleteFile" with {"path":"/a"} as "call_1"
    When the user says "delete /a"
    Given the model replies "Deleted /a."
    When the user approves "call_1" along with the unknown approval "approval_ghost"
    Then model call 2 did not receive the text "orphan approval"

    Examples:
      | mode     |
      | generate |
      | stream   |

  @PRE-05
  Scenario Outline: pending approvals with <toolkit> toolkit fail with ToolkitRequired (<mode>)
    Given the agent runs in <mode> mode
    And the model calls "deleteFile" with {"path":"/a"} as "call_1"
    When the user says "delete /a"
    Then an approval is requested for "call_1"
    Given <toolkit> toolkit is given
    When the user approves "call_1"
    Then the turn fails with "ToolkitRequired"
    And "deleteFile" has not run
    And the model was not called in the turn

    Examples:
      | toolkit  | mode     |
      | no       | generate |
      | no       | stream   |
      | an empty | generate |
      | an empty | stream   |

  @PRE-06
  Scenario Outline: an approved call to a tool not in the toolkit never runs (<mode>)
    Given the agent runs in <mode> mode
    And the model calls "deleteFile" with {"path":"/a"} as "call_1"
    When the user says "delete /a"
    Given the toolkit leaves out "deleteFile"
    And the model may reply "I could not delete /a."
    When the user approves "call_1"
    Then the turn fails with "ToolNotFound" or "call_1" gets a denial result
    And "deleteFile" has not run

    Examples:
      | mode     |
      | generate |
      | stream   |

  @PRE-07
  Scenario Outline: the concurrency option bounds how many approved calls run at once (bound <bound>)
    Given a tool "slowTask" that needs approval and is slow
    And the concurrency option is <bound>
    And the model calls:
      | id     | tool     | input    |
      | call_1 | slowTask | {"n":1}  |
      | call_2 | slowTask | {"n":2}  |
      | call_3 | slowTask | {"n":3}  |
    When the user says "run the three tasks"
    Given the model replies "All three tasks ran."
    When the user approves "call_1", "call_2" and "call_3"
    Then "slowTask" has run 3 times
    And at most <bound> tools ran at once

    Examples:
      | bound |
      | 1     |
      | 2     |

  @PRE-09
  Scenario Outline: every response of a batch is resolved (<mode>)
    Given the agent runs in <mode> mode
    And the model calls:
      | id     | tool       | input         |
      | call_1 | deleteFile | {"path":"/a"} |
      | call_2 | deleteFile | {"path":"/b"} |
      | call_3 | deleteFile | {"path":"/c"} |
    When the user says "delete /a, /b and /c"
    Given the model replies "Deleted /a and /b; kept /c."
    When the user answers:
      | call   | answer  | reason     |
      | call_1 | approve |            |
      | call_2 | approve |            |
      | call_3 | deny    | keep it    |
    Then the turn ends with finish reason "stop"
    And "call_1" has run 1 time
    And "call_2" has run 1 time
    And "call_3" has not run
    And model call 2 received a "json" result for "call_1"
    And model call 2 received a "json" result for "call_2"
    And model call 2 received an "execution-denied" result for "call_3"

    Examples:
      | mode     |
      | generate |
      | stream   |

  @PRE-10
  Scenario Outline: approval requests are found anywhere in the history (<mode>)
    Given the agent runs in <mode> mode
    And the model calls "deleteFile" with {"path":"/a"} as "call_1"
    When the user says "delete /a"
    Given the model replies "Deleted /a."
    When the user approves "call_1" after an assistant note "I will wait for your answer."
    Then the turn ends with finish reason "stop"
    And "call_1" has run 1 time
    And model call 2 received a "json" result for "call_1"

    Examples:
      | mode     |
      | generate |
      | stream   |

  @PRE-11
  Scenario Outline: a duplicated approval runs the call once and gives one result (<mode>)
    Given the agent runs in <mode> mode
    And the model calls "deleteFile" with {"path":"/a"} as "call_1"
    When the user says "delete /a"
    Given the model replies "Deleted /a."
    When the user approves "call_1" twice in one message
    Then "call_1" has run 1 time
    And model call 2 received exactly one result for each of "call_1"

    Examples:
      | mode     |
      | generate |
      | stream   |

  @PRE-11
  Scenario Outline: conflicting answers for one call run it at most once and give one result (<mode>)
    Given the agent runs in <mode> mode
    And the model calls "deleteFile" with {"path":"/a"} as "call_1"
    When the user says "delete /a"
    Given the model replies "Understood."
    When the user approves and denies "call_1" in one message
    Then "call_1" has run at most 1 time
    And model call 2 received exactly one result for each of "call_1"

    Examples:
      | mode     |
      | generate |
      | stream   |

  @PRE-12 @should
  Scenario Outline: approval parts and an approval's reason do not reach the model (<mode>)
    Given the agent runs in <mode> mode
    And the model calls "deleteFile" with {"path":"/a"} as "call_1"
    When the user says "delete /a"
    Given the model replies "Deleted /a."
    When the user approves "call_1" because "my private reason 7731"
    Then model call 2 received no approval parts
    And model call 2 did not receive the text "my private reason 7731"

    Examples:
      | mode     |
      | generate |
      | stream   |

  @PRE-13 @should
  Scenario Outline: a turn that fails validation fails before any tool runs (<mode>)
    Given the agent runs in <mode> mode
    And a tool "sendEmail" that needs approval
    And the model calls:
      | id     | tool       | input          |
      | call_1 | deleteFile | {"path":"/a"}  |
      | call_2 | sendEmail  | {"to":"bob"}   |
    When the user says "delete /a and mail bob"
    Given the toolkit leaves out "sendEmail"
    And the model may reply "I deleted /a but could not mail bob."
    When the user approves "call_1" and "call_2"
    Then if the turn failed, nothing has run

    Examples:
      | mode     |
      | generate |
      | stream   |
