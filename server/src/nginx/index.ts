// PLACEHOLDER until the nginx language module lands: replace this whole file.
import type { LanguageModule } from '../service/types';
export const nginxModule: LanguageModule<string> = {
  id: 'nginx',
  parse: (text) => text,
  validate: () => [],
  complete: () => ({ isIncomplete: false, items: [] }),
  hover: () => null,
};
