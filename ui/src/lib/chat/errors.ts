// A failed run's error class, said plainly, with what the user can do about it.
import type { RunError } from '../../state/chat';

export interface ErrorAdvice {
  title: string;
  action: string;
}

export function adviceFor(error: RunError, keyEnv: string | null): ErrorAdvice {
  switch (error.kind) {
    case 'authentication':
      return {
        title: 'The provider did not accept the API key',
        action: keyEnv
          ? `Check ${keyEnv} in your environment and restart Arbor, or pick another model.`
          : 'Check the provider’s API key, or pick another model.',
      };
    case 'rate_limited':
      return { title: 'Rate limited', action: 'Wait a moment, then retry.' };
    case 'quota_exceeded':
      return {
        title: 'The account’s quota is used up',
        action: 'Check the plan and billing with the provider, or pick another model.',
      };
    case 'overloaded':
      return {
        title: 'The provider is overloaded',
        action: 'Retry in a moment, or pick another model.',
      };
    case 'context_overflow':
      return {
        title: 'The conversation is too long for this model',
        action: 'Start a new chat, or pick a model with a larger context window.',
      };
    case 'invalid_request':
      return {
        title: 'The provider rejected the request',
        action: 'Retry; if it fails again, pick another model or start a new chat.',
      };
    case 'refused':
      return { title: 'The model refused to answer', action: 'Rephrase the request, or retry.' };
    case 'network':
      return {
        title: 'The provider could not be reached',
        action: 'Check the network (and the base URL of a local model), then retry.',
      };
    case 'store':
      return {
        title: 'The chat could not be saved',
        action: `Nothing after this point was saved, and the run was stopped. Free some disk space or check Arbor’s data folder, then ${error.unsavedPrompt ? 'send the message again' : 'ask for the answer again'}.`,
      };
    case 'provider':
    case 'aborted':
      return { title: 'The provider reported an error', action: 'Retry, or pick another model.' };
  }
}
