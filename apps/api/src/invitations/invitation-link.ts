// Shared with the ops CLI (platform invitations of company administrators): the code lives in libs/domain.
export {
  generateInvitationToken,
  hashInvitationToken,
  INVITATION_LIFETIME_DAYS,
  INVITATION_PAGE_PATH,
  invitationLink,
  TOKEN_PATTERN,
} from '@app/domain';
