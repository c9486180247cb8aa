import { newId } from '@app/database';
import { UUID_PATTERN } from '@app/domain';
import { html, type Html } from '../../pages/html';

/**
 * One id per rendered creation form, sent back as a hidden field and used as the new record's
 * id: a resubmission of the same form (reloading the page that showed the one-time secret, or a
 * double click) finds the record already created instead of making a second one.
 */
export const SUBMISSION_FIELD = 'submission';

export const newSubmission = (): string => newId();

/** The id the form carried, or a fresh one when it carried none or garbage. */
export const submissionFrom = (value: unknown): string => (typeof value === 'string' && UUID_PATTERN.test(value) ? value.toLowerCase() : newSubmission());

export const submissionField = (submission: string): Html => html`<input type="hidden" name="${SUBMISSION_FIELD}" value="${submission}">`;
