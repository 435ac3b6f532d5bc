;;; emacs-client.el --- drive eglot against the Proxy Tuner language server, headless  -*- lexical-binding: t -*-
;; emacs --batch -l SETUP.el -l emacs-client.el
;; SETUP.el is the block of docs/editors.md.  Parameters come from the environment (PT_*); the
;; observations go as JSON to PT_OUT.  The script always ends Emacs itself.

(require 'json)
(require 'cl-lib)
(require 'eglot)
(require 'flymake)

(defvar pt-result (list (cons 'log [])))
(defvar pt-published nil "publishDiagnostics params, newest first.")
(defvar pt-t0 nil)

(defun pt-env-num (name) (string-to-number (or (getenv name) "0")))
(defun pt-set (key value) (setf (alist-get key pt-result) value))

(defun pt-write ()
  (with-temp-file (getenv "PT_OUT")
    (insert (json-encode pt-result))))

(defun pt-wait (pred what)
  "Let the process and timers run until PRED holds, else signal."
  (let ((deadline (+ (float-time) (/ (pt-env-num "PT_TIMEOUT_MS") 1000.0))))
    (while (and (not (funcall pred)) (< (float-time) deadline))
      (accept-process-output nil 0.02))
    (unless (funcall pred) (error "no %s within %s ms" what (getenv "PT_TIMEOUT_MS")))))

(defun pt-goto (line char)
  (goto-char (point-min))
  (forward-line line)
  (forward-char char))

(cl-defmethod eglot-handle-notification :before
  (_server (_method (eql textDocument/publishDiagnostics)) &rest params &key &allow-other-keys)
  (unless pt-published
    (pt-set 'first_diagnostics_ms (* 1000 (- (float-time) pt-t0))))
  (push params pt-published))

(defun pt-run ()
  (setq pt-t0 (float-time))
  (find-file (getenv "PT_FILE"))
  (pt-set 'major_mode (symbol-name major-mode))
  (when (getenv "PT_MODE_ONLY") (pt-write) (kill-emacs 0))
  ;; eglot-ensure connects from post-command-hook, which batch mode never runs by itself
  (run-hooks 'post-command-hook)
  (let ((server (eglot-current-server)))
    (unless server (error "eglot started no server for %s" major-mode))
    (pt-set 'language_id (eglot--language-id server))
    ;; 1. diagnostics as the server sent them, and as Flymake stores them
    (pt-wait (lambda () pt-published) "publishDiagnostics")
    (pt-set 'published
            (vconcat (mapcar (lambda (d) (list (cons 'code (plist-get d :code))
                                               (cons 'message (plist-get d :message))
                                               (cons 'range (plist-get d :range))))
                             (plist-get (car pt-published) :diagnostics))))
    (flymake-start)
    (pt-wait (lambda () (flymake-diagnostics)) "Flymake diagnostics")
    (pt-set 'stored
            (vconcat (mapcar (lambda (d)
                               (save-excursion
                                 (goto-char (flymake-diagnostic-beg d))
                                 (list (cons 'line (1- (line-number-at-pos)))
                                       (cons 'col (current-column))
                                       (cons 'text (flymake-diagnostic-text d)))))
                             (flymake-diagnostics))))
    ;; 2. completion as completion-at-point asks for it
    (pt-goto (pt-env-num "PT_COMPLETION_LINE") (pt-env-num "PT_COMPLETION_CHAR"))
    (let* ((capf (eglot-completion-at-point))
           (prefix (buffer-substring-no-properties (nth 0 capf) (nth 1 capf))))
      (pt-set 'completion_prefix prefix)
      (pt-set 'completion (vconcat (mapcar #'substring-no-properties (all-completions prefix (nth 2 capf))))))
    ;; 3. hover at PT_HOVER_*
    (pt-goto (pt-env-num "PT_HOVER_LINE") (pt-env-num "PT_HOVER_CHAR"))
    (let* ((hover (jsonrpc-request server :textDocument/hover (eglot--TextDocumentPositionParams)))
           (contents (plist-get hover :contents)))
      (pt-set 'hover (cond ((stringp contents) contents)
                           ((plist-get contents :value))
                           (t (format "%S" contents)))))
    ;; 4. code actions for the diagnostic's range
    (let* ((d (car (flymake-diagnostics)))
           (actions (jsonrpc-request server :textDocument/codeAction
                                     (list :textDocument (eglot--TextDocumentIdentifier)
                                           :range (list :start (eglot--pos-to-lsp-position (flymake-diagnostic-beg d))
                                                        :end (eglot--pos-to-lsp-position (flymake-diagnostic-end d)))
                                           :context (list :diagnostics (vconcat (plist-get (car pt-published) :diagnostics)))))))
      (pt-set 'code_actions (vconcat (mapcar (lambda (a) (plist-get a :title)) actions))))
    (eglot-shutdown server)
    (pt-set 'stopped (not (jsonrpc-running-p server)))))

(condition-case err
    (progn (pt-run) (pt-write) (kill-emacs 0))
  (error (pt-set 'error (error-message-string err)) (pt-write) (kill-emacs 3)))
