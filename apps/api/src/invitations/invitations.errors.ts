import { ApiError, ConflictError } from '../common/api-error';

export const alreadyInvited = (): ConflictError =>
  new ConflictError('already_invited', 'This e-mail address already has a pending invitation to this account; revoke it first to send a new one.', 'Already invited');

export const userExists = (): ConflictError =>
  new ConflictError('user_exists', 'A user with this e-mail address already exists.', 'User exists');

export const invitationAlreadyAccepted = (): ConflictError =>
  new ConflictError('invitation_already_accepted', 'The invitation was accepted; it can no longer be revoked.', 'Invitation already accepted');

export const emailDeliveryFailed = (): ApiError =>
  new ApiError(503, 'email_delivery_failed', 'E-mail delivery failed', 'The invitation e-mail could not be sent, so no invitation was created; retry later.', undefined, {
    'Retry-After': '30',
  });
