@agent
Feature: Errors and bad input
  A malformed approval is refused with a clear error before anything runs,
  and a tool that fails still gives the model a result (or fails the turn,
  as the target declares). Every assertion names, in brackets, the check
  whose rule it tests.

  Background:
    Given a tool "deleteFile" that needs approval

  @ERR-01 @REQ-01
  Scenario Outline: a malformed approval is refused and nothing runs (<case>, <mode>)
    Given the agent runs in <mode> mode
    And the model calls "deleteFile" with {"path":"/a"} as "call_1"
    When the user says "delete /a"
    Then [REQ-01] an approval is requested for "call_1"
    When the user sends a malformed approval for "call_1": <approval>
    Then [ERR-01] the turn fails with a clear error
    And [ERR-01] "deleteFile" has not run
    And [ERR-01] the model was not called in the turn

    Examples:
      | case                      | mode     | approval                                                                          |
      | approved as a string      | generate | {"type":"tool-approval-response","approvalId":"$APPROVAL","approved":"yes"}       |
      | approved as a string      | stream   | {"type":"tool-approval-response","approvalId":"$APPROVAL","approved":"true"}      |
      | approved missing          | generate | {"type":"tool-approval-response","approvalId":"$APPROVAL"}                        |
      | approved missing          | stream   | {"type":"tool-approval-response","approvalId":"$APPROVAL"}                        |
      | approval id missing       | generate | {"type":"tool-approval-response","approved":true}                                 |
      | approval id empty         | stream   | {"type":"tool-approval-response","approvalId":"","approved":true}                 |
      | approval id as a number   | stream   | {"type":"tool-approval-response","approvalId":42,"approved":true}                 |
      | approved as null          | generate | {"type":"tool-approval-response","approvalId":"$APPROVAL","approved":null}        |
      | unknown part type         | generate | {"type":"tool-approval","approvalId":"$APPROVAL","approved":true}                 |

  @ERR-01 @REQ-01
  Scenario Outline: an unknown extra field on an answer never changes its outcome (<mode>)
    Given the agent runs in <mode> mode
    And the model calls "deleteFile" with {"path":"/a"} as "call_1"
    When the user says "delete /a"
    Then [REQ-01] an approval is requested for "call_1"
    Given the model may reply "I left /a alone."
    When the user sends a malformed approval for "call_1": {"type":"tool-approval-response","approvalId":"$APPROVAL","approved":false,"override":true}
    Then [ERR-01] the turn fails with a clear error or "call_1" gets a denial result
    And [ERR-01] "deleteFile" has not run

    Examples:
      | mode     |
      | generate |
      | stream   |

  @ERR-02 @PRE-01 @REQ-01
  Scenario Outline: a tool that fails after approval gives the model an error result, or fails the turn as declared (<mode>)
    Given the agent runs in <mode> mode
    And the tool "deleteFile" fails with "disk on fire"
    And the model calls "deleteFile" with {"path":"/a"} as "call_1"
    When the user says "delete /a"
    Then [REQ-01] an approval is requested for "call_1"
    Given the model may reply "The deletion failed."
    When the user approves "call_1"
    Then [PRE-01] "call_1" has run
    And [ERR-02] "call_1" failed as the target declares, with "disk on fire"

    Examples:
      | mode     |
      | generate |
      | stream   |

  @ERR-02 @PRE-01 @REQ-01
  Scenario Outline: a failing tool among approved ones leaves every call with a result (<mode>)
    Given the agent runs in <mode> mode
    And a tool "sendEmail" that needs approval
    And the tool "sendEmail" fails with "smtp is down"
    And the model calls:
      | id     | tool       | input          |
      | call_1 | deleteFile | {"path":"/a"}  |
      | call_2 | sendEmail  | {"to":"bob"}   |
    When the user says "delete /a and mail bob"
    Then [REQ-01] approvals are requested for "call_1" and "call_2"
    Given the model may reply "Deleted /a; the mail failed."
    When the user approves "call_1" and "call_2"
    Then [PRE-01] "call_1" has run
    And [PRE-01] "call_2" has run
    And [ERR-02] "call_2" failed as the target declares, with "smtp is down"

    Examples:
      | mode     |
      | generate |
      | stream   |
