@agent
Feature: Provider-executed approvals
  A tool the provider runs itself (an MCP server behind OpenAI's Responses
  API, say) asks for approval through the provider. Its approval is
  forwarded to the provider; the call never runs locally.
  Every assertion names, in brackets, the check whose rule it tests.

  Background:
    Given the model speaks "openai-responses"
    And a tool "web_search" that the provider runs

  @PROV-01
  Scenario Outline: a provider's approval is forwarded and the call never runs locally (<mode>)
    Given the agent runs in <mode> mode
    And the model calls the provider tool "web_search" with {"q":"weather"} as "mcp_call_1" asking approval "mcpr_1"
    When the user says "search the weather"
    Then [PROV-01] the turn carries the provider's approval request "mcpr_1" for "mcp_call_1"
    And [PROV-01] "web_search" has not run
    Given the model replies "It is sunny."
    When the user approves the provider approval "mcpr_1"
    Then [PROV-01] "web_search" has not run
    And [PROV-01] model call 2 received the provider approval "mcpr_1" as approved

    Examples:
      | mode     |
      | generate |
      | stream   |

  @PROV-01
  Scenario Outline: a provider's denial is forwarded too (<mode>)
    Given the agent runs in <mode> mode
    And the model calls the provider tool "web_search" with {"q":"weather"} as "mcp_call_1" asking approval "mcpr_1"
    When the user says "search the weather"
    Then [PROV-01] the turn carries the provider's approval request "mcpr_1" for "mcp_call_1"
    Given the model replies "I will not search."
    When the user denies the provider approval "mcpr_1"
    Then [PROV-01] "web_search" has not run
    And [PROV-01] model call 2 received the provider approval "mcpr_1" as denied

    Examples:
      | mode     |
      | generate |
      | stream   |

  @REQ-07 @PROV-01
  Scenario: a provider's approval request reaches the stream's consumer
    Given the agent runs in stream mode
    And the model calls the provider tool "web_search" with {"q":"weather"} as "mcp_call_1" asking approval "mcpr_1"
    When the user says "search the weather"
    Then [PROV-01] the turn carries the provider's approval request "mcpr_1" for "mcp_call_1"
    And [REQ-07] the stream carries the provider's approval request "mcpr_1"

  @PROV-02 @PROV-01
  Scenario Outline: a provider approval answered without the flag is forwarded or refused, never dropped (<mode>)
    Given the agent runs in <mode> mode
    And the model calls the provider tool "web_search" with {"q":"weather"} as "mcp_call_1" asking approval "mcpr_1"
    When the user says "search the weather"
    Then [PROV-01] the turn carries the provider's approval request "mcpr_1" for "mcp_call_1"
    Given the model may reply "It is sunny."
    When the user approves the provider approval "mcpr_1" without the providerExecuted flag
    Then [PROV-01] "web_search" has not run
    And [PROV-02] model call 2 received the provider approval "mcpr_1" as approved, or the turn failed with a clear error

    Examples:
      | mode     |
      | generate |
      | stream   |

  @PROV-02 @PROV-01
  Scenario Outline: a provider denial answered without the flag is forwarded or refused, never dropped (<mode>)
    Given the agent runs in <mode> mode
    And the model calls the provider tool "web_search" with {"q":"weather"} as "mcp_call_1" asking approval "mcpr_1"
    When the user says "search the weather"
    Then [PROV-01] the turn carries the provider's approval request "mcpr_1" for "mcp_call_1"
    Given the model may reply "All right, no search."
    When the user denies the provider approval "mcpr_1" without the providerExecuted flag
    Then [PROV-01] "web_search" has not run
    And [PROV-02] model call 2 received the provider approval "mcpr_1" as denied, or the turn failed with a clear error

    Examples:
      | mode     |
      | generate |
      | stream   |

  @PROV-01 @REQ-06 @PRE-08
  Scenario Outline: a hosted tool's result returned by the provider is kept, and the call never runs locally (<mode>)
    Given the agent runs in <mode> mode
    And the model calls the provider tool "web_search" with {"q":"weather"} as "mcp_call_1" asking approval "mcpr_1"
    When the user says "search the weather"
    Then [PROV-01] the turn carries the provider's approval request "mcpr_1" for "mcp_call_1"
    Given the model returns the result {"forecast":"sunny"} of the provider tool "web_search" for "mcp_call_1" run on the approval "mcpr_1"
    When the user approves the provider approval "mcpr_1"
    Then [PROV-01] "web_search" has not run
    And [REQ-06] the turn added a "json" result for "mcp_call_1"
    And the stream's result events match the turn's results
    Given the model replies "You are welcome."
    When the user says "thanks"
    Then [PROV-01] "web_search" has not run

    Examples:
      | mode     |
      | generate |
      | stream   |

  @PROV-01
  Scenario Outline: a provider that asks approval again after a denial gets the user's new answer, not the old one (<mode>)
    Given the agent runs in <mode> mode
    And the model calls the provider tool "web_search" with {"q":"weather"} as "mcp_call_1" asking approval "mcpr_1"
    When the user says "search the weather"
    Then [PROV-01] the turn carries the provider's approval request "mcpr_1" for "mcp_call_1"
    Given the model calls the provider tool "web_search" with {"q":"weather today"} as "mcp_call_2" asking approval "mcpr_2"
    When the user denies the provider approval "mcpr_1"
    Then [PROV-01] model call 2 received the provider approval "mcpr_1" as denied
    And [PROV-01] the turn carries the provider's approval request "mcpr_2" for "mcp_call_2"
    Given the model replies "It is sunny today."
    When the user approves the provider approval "mcpr_2"
    Then [PROV-01] model call 3 received the provider approval "mcpr_2" as approved
    And [PROV-01] "web_search" has not run

    Examples:
      | mode     |
      | generate |
      | stream   |
