import { ConflictError } from '../errors';

export const alreadyInvited = (): ConflictError =>
  new ConflictError('already_invited', 'This e-mail address already has a pending invitation to this account; revoke it first to send a new one.', 'Already invited');

export const userExists = (): ConflictError =>
  new ConflictError('user_exists', 'A user of this account already has this e-mail address.', 'User exists');

export const invitationAlreadyAccepted = (): ConflictError =>
  new ConflictError('invitation_already_accepted', 'The invitation was accepted; it can no longer be revoked.', 'Invitation already accepted');
