@agent
Feature: Errors and bad input
  A malformed approval is refused with a clear error before anything runs,
  and a tool that fails still gives the model a result.

  Background:
    Given a tool "deleteFile" that needs approval

  @ERR-01
  Scenario Outline: a malformed approval is refused and nothing runs (<case>, <mode>)
    Given the agent runs in <mode> mode
    And the model calls "deleteFile" with {"path":"/a"} as "call_1"
    When the user says "delete /a"
    When the user sends a malformed approval for "call_1": <approval>
    Then the turn fails with a clear error
    And "deleteFile" has not run
    And the model was not called in the turn

    Examples:
      | case                      | mode     | approval                                                                          |
      | approved as a string      | generate | {"type":"tool-approval-response","approvalId":"$APPROVAL","approved":"yes"}       |
      | approved as a string      | stream   | {"type":"tool-approval-response","approvalId":"$APPROVAL","approved":"true"}      |
      | approved missing          | generate | {"type":"tool-approval-response","approvalId":"$APPROVAL"}                        |
      | approval id missing       | generate | {"type":"tool-approval-response","approved":true}                                 |
      | approval id as a number   | stream   | {"type":"tool-approval-response","approvalId":42,"approved":true}                 |
      | unknown part type         | generate | {"type":"tool-approval","approvalId":"$APPROVAL","approved":true}                 |

  @ERR-02
  Scenario Outline: a tool that fails after approval gives the model an error result (<mode>)
    Given the agent runs in <mode> mode
    And the tool "deleteFile" fails with "disk on fire"
    And the model calls "deleteFile" with {"path":"/a"} as "call_1"
    When the user says "delete /a"
    Given the model replies "The deletion failed."
    When the user approves "call_1"
    Then the turn ends with finish reason "stop"
    And model call 2 received an error result for "call_1" containing "disk on fire"

    Examples:
      | mode     |
      | generate |
      | stream   |
