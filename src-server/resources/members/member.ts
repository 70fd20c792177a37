// The stored member: the v3 Member shape (spec part 1 §2.3) less the derived group_ids.
export type Role = 'owner' | 'admin' | 'member' | 'observer'

export interface MemberRecord {
  id: string
  created_at: string
  updated_at: string
  disabled: boolean
  role: Role
  state: 'full' | 'partial' | 'disabled'
  org_id: string
  profile: {
    deactivated: boolean
    display_icon: null
    email_address: string
    gravatar_hash: string
    is_owner: boolean
    mention_name: string
    name: string
    two_factor_auth_activated: boolean
  }
}
