// PLACEHOLDER until the haproxy language module lands: replace this whole file.
import type { LanguageModule } from '../service/types';
export const haproxyModule: LanguageModule<string> = {
  id: 'haproxy',
  parse: (text) => text,
  validate: () => [],
  complete: () => ({ isIncomplete: false, items: [] }),
  hover: () => null,
};
