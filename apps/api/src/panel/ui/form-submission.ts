import { v5 as uuidv5 } from 'uuid';
import { newId } from '@app/database';
import type { AccountId } from '@app/vocabulary';
import { html, type Html } from '../../common/html';
import { UUID_PATTERN } from '@app/vocabulary';

/**
 * One id per rendered creation form, sent back as a hidden field: the new record's id is derived
 * from it and the session's account (`recordIdFor`), so a resubmission of the same form (reloading
 * the page that showed the one-time secret, or a double click) finds the record already created
 * instead of making a second one.
 */
export const SUBMISSION_FIELD = 'submission';

export const newSubmission = (): string => newId();

/** The id the form carried, or a fresh one when it carried none or garbage. */
export const submissionFrom = (value: unknown): string => (typeof value === 'string' && UUID_PATTERN.test(value) ? value.toLowerCase() : newSubmission());

export const submissionField = (submission: string): Html => html`<input type="hidden" name="${SUBMISSION_FIELD}" value="${submission}">`;

/**
 * The id of the record a form submission creates: a name-based UUID (v5) of the form kind and the
 * submission id, in the namespace of the session's account. The submission id is whatever the
 * browser sent, so using it as the id itself let a company probe for other companies' records
 * ("already created" answered for another tenant's id); derived per account, a submission can
 * only ever find the company's own record, and another tenant's id is a fresh form like any other.
 */
export const recordIdFor = (accountId: AccountId, kind: 'credential' | 'webhook-endpoint', submission: string): string =>
  uuidv5(`${kind}:${submission}`, accountId);
